import { index, integer, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { retryColumns } from "./retry-columns.ts";

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
    ...retryColumns(),
    createdAt: integer("created_at").notNull(),
  },
  (t) => [index("outbox_due_idx").on(t.status, t.nextAttemptAt)],
);

