import { index, integer, primaryKey, sqliteTable, text } from "drizzle-orm/sqlite-core";

/**
 * Durable delivery queue: written in the same transaction as the outbound message row, drained by
 * the outbox worker with retries. Each attempt is signed afresh (new timestamp and nonce) so a
 * retry after minutes is still fresh at the receiver; the envelope id never changes.
 */
export const outbox = sqliteTable(
  "outbox",
  {
    id: text("id").primaryKey(),
    messageId: text("message_id").notNull().unique(),
    peerPrincipal: text("peer_principal").notNull(),
    status: text("status", { enum: ["queued", "delivered", "failed", "cancelled"] }).notNull(),
    attempts: integer("attempts").notNull().default(0),
    nextAttemptAt: integer("next_attempt_at").notNull(),
    lastAttemptAt: integer("last_attempt_at"),
    lastStatus: integer("last_status"),
    lastError: text("last_error"),
    deliveredAt: integer("delivered_at"),
    createdAt: integer("created_at").notNull(),
  },
  (t) => [index("outbox_due_idx").on(t.status, t.nextAttemptAt)],
);

/** Replay nonces seen on inbound requests (INK §8): inserted with the message, kept past the window. */
export const inboundNonces = sqliteTable(
  "inbound_nonces",
  {
    scope: text("scope").notNull(),
    nonce: text("nonce").notNull(),
    seenAt: integer("seen_at").notNull(),
  },
  (t) => [primaryKey({ columns: [t.scope, t.nonce] }), index("inbound_nonces_seen_idx").on(t.seenAt)],
);
