import { blob, index, integer, sqliteTable, text } from "drizzle-orm/sqlite-core";

/**
 * Mailboxes this node keeps for other agents (docs/decisions/mailbox.md): one row per agent id,
 * its quotas, and the card the agent published here (exact bytes, served at the INK discovery path).
 */
export const mailboxGrants = sqliteTable("mailbox_grants", {
  id: text("id").primaryKey(),
  /** The home agent's id exactly as it appears in paths and in its card. */
  agentId: text("agent_id").notNull().unique(),
  principal: text("principal").notNull(),
  maxMessages: integer("max_messages").notNull(),
  maxBytes: integer("max_bytes").notNull(),
  retentionMs: integer("retention_ms").notNull(),
  createdAt: integer("created_at").notNull(),
  revokedAt: integer("revoked_at"),
  cardJson: text("card_json"),
  cardKeySetVersion: integer("card_key_set_version"),
  cardPublishedAt: integer("card_published_at"),
  lastDrainAt: integer("last_drain_at"),
});

/** Requests held for a mailbox: the exact bytes and header a receiver would have seen. */
export const mailboxItems = sqliteTable(
  "mailbox_items",
  {
    id: text("id").primaryKey(),
    grantId: text("grant_id").notNull(),
    senderPrincipal: text("sender_principal").notNull(),
    acceptedAt: integer("accepted_at").notNull(),
    authorization: text("authorization").notNull(),
    /** The sender's `Link: <card>; rel="agent-card"` hint (first contact, INK §15), as the receiver would have read it. */
    cardHint: text("card_hint"),
    body: blob("body", { mode: "buffer" }).notNull(),
    bytes: integer("bytes").notNull(),
  },
  (t) => [index("mailbox_items_grant_idx").on(t.grantId, t.id), index("mailbox_items_accepted_idx").on(t.acceptedAt)],
);

/** The mailbox this (home) node drains, and how the last drains went (GET /api/svc/mailbox). */
export const mailboxUses = sqliteTable("mailbox_uses", {
  url: text("url").primaryKey(),
  cardHash: text("card_hash"),
  cardPublishedAt: integer("card_published_at"),
  lastDrainAt: integer("last_drain_at"),
  lastError: text("last_error"),
  drained: integer("drained").notNull().default(0),
  refused: integer("refused").notNull().default(0),
});
