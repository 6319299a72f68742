import { sql } from "drizzle-orm";
import { check, index, integer, sqliteTable, text } from "drizzle-orm/sqlite-core";

/**
 * Something the agent will not do without the owner: an inbound intent held by the autonomy rule,
 * a connection request from a stranger, or an outbound send an automation drafted. Decided once.
 */
export const pendingActions = sqliteTable(
  "pending_actions",
  {
    id: text("id").primaryKey(),
    kind: text("kind", { enum: ["inbound_intent", "connection_request", "outbound_intent"] }).notNull(),
    status: text("status", { enum: ["pending", "approved", "rejected"] }).notNull(),
    messageId: text("message_id"),
    connectionId: text("connection_id"),
    reason: text("reason").notNull(),
    actionJson: text("action_json"),
    resultJson: text("result_json"),
    createdAt: integer("created_at").notNull(),
    decidedAt: integer("decided_at"),
  },
  (t) => [
    check("pending_actions_status", sql`${t.status} in ('pending', 'approved', 'rejected')`),
    index("pending_actions_status_idx").on(t.status, t.createdAt),
  ],
);
