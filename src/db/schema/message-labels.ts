import { index, integer, primaryKey, sqliteTable, text } from "drizzle-orm/sqlite-core";

/** Labels on inbound messages (put there by `label` rules). */
export const messageLabels = sqliteTable(
  "message_labels",
  {
    messageId: text("message_id").notNull(),
    label: text("label").notNull(),
    ruleId: text("rule_id"),
    createdAt: integer("created_at").notNull(),
  },
  (t) => [primaryKey({ columns: [t.messageId, t.label] }), index("message_labels_label_idx").on(t.label)],
);
