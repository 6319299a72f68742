import { sql } from "drizzle-orm";
import { check, index, integer, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";

/** A thread: request and responses sharing one correlationId with one peer. */
export const conversations = sqliteTable(
  "conversations",
  {
    id: text("id").primaryKey(),
    peerPrincipal: text("peer_principal").notNull(),
    correlationId: text("correlation_id").notNull(),
    subject: text("subject"),
    messageCount: integer("message_count").notNull().default(0),
    lastMessageAt: integer("last_message_at").notNull(),
    createdAt: integer("created_at").notNull(),
  },
  (t) => [uniqueIndex("conversations_peer_correlation").on(t.peerPrincipal, t.correlationId), index("conversations_last_idx").on(t.lastMessageAt)],
);

export const INBOUND_STATUSES = ["unread", "read", "pending", "responded", "rejected", "retracted", "expired"] as const;
export const OUTBOUND_STATUSES = ["queued", "delivered", "failed", "held", "cancelled"] as const;

/**
 * Every intent envelope in or out. Inbound rows are deduplicated per sender on the envelope `id`
 * (a retried delivery finds its row and gets the same answer); outbound rows carry the envelope
 * id exactly as sent on the wire.
 */
export const messages = sqliteTable(
  "messages",
  {
    id: text("id").primaryKey(),
    envelopeId: text("envelope_id").notNull(),
    direction: text("direction", { enum: ["in", "out"] }).notNull(),
    peerPrincipal: text("peer_principal").notNull(),
    peerAgentId: text("peer_agent_id").notNull(),
    conversationId: text("conversation_id")
      .notNull()
      .references(() => conversations.id),
    correlationId: text("correlation_id").notNull(),
    intent: text("intent").notNull(),
    protocol: text("protocol").notNull(),
    payloadJson: text("payload_json").notNull(),
    envelopeJson: text("envelope_json"),
    sealed: integer("sealed", { mode: "boolean" }).notNull().default(false),
    status: text("status").notNull(),
    createdAt: integer("created_at").notNull(),
    receivedAt: integer("received_at").notNull(),
    expiresAt: integer("expires_at"),
    inReplyTo: text("in_reply_to"),
    respondedAt: integer("responded_at"),
    pendingActionId: text("pending_action_id"),
    ackStatus: integer("ack_status"),
    keyId: text("key_id"),
    searchText: text("search_text").notNull().default(""),
    /** INK §2 envelope `provenance` of an outbound message an extension sent ({origin, extensionId, installationId}). */
    provenanceJson: text("provenance_json"),
  },
  (t) => [
    // Leads with envelope_id so it also serves lookups by envelope id alone (one index fewer to
    // maintain on the inbound hot path).
    uniqueIndex("messages_dedupe").on(t.envelopeId, t.peerPrincipal, t.direction),
    index("messages_conversation_idx").on(t.conversationId, t.receivedAt),
    index("messages_direction_idx").on(t.direction, t.receivedAt),
    // Relationship scoring aggregates one peer's year of traffic (domain/relationships).
    index("messages_peer_idx").on(t.peerPrincipal, t.receivedAt),
    check("messages_direction", sql`${t.direction} in ('in', 'out')`),
  ],
);
