import { index, integer, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";

/**
 * Delivery receipts peers sent for this node's outbound messages (AUDIT §1), verified against
 * the envelope as sent: one per message and disposition (a repeat with a new nonce changes
 * nothing). `receiptJson` is the receipt exactly as received, so it can be shown and re-verified.
 */
export const messageReceipts = sqliteTable(
  "message_receipts",
  {
    id: text("id").primaryKey(),
    messageId: text("message_id").notNull(),
    peerPrincipal: text("peer_principal").notNull(),
    disposition: text("disposition").notNull(),
    dispositionAt: text("disposition_at").notNull(),
    receiptJson: text("receipt_json").notNull(),
    receivedAt: integer("received_at").notNull(),
  },
  (t) => [uniqueIndex("message_receipts_once").on(t.messageId, t.disposition), index("message_receipts_peer_idx").on(t.peerPrincipal)],
);
