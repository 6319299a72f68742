import { sql } from "drizzle-orm";
import { check, index, integer, sqliteTable, text } from "drizzle-orm/sqlite-core";

export const RULE_ACTIONS = ["auto_respond", "decline", "hold", "label"] as const;
export type RuleActionType = (typeof RULE_ACTIONS)[number];

/**
 * Automation rules over inbound messages: `matchJson` says which messages, `actionJson` what to
 * do. Enabled rules run in ascending `priority` (then creation order) after the message commits.
 */
export const rules = sqliteTable(
  "rules",
  {
    id: text("id").primaryKey(),
    name: text("name").notNull(),
    enabled: integer("enabled", { mode: "boolean" }).notNull().default(true),
    priority: integer("priority").notNull(),
    matchJson: text("match_json").notNull(),
    action: text("action", { enum: RULE_ACTIONS }).notNull(),
    actionJson: text("action_json").notNull(),
    createdAt: integer("created_at").notNull(),
    updatedAt: integer("updated_at").notNull(),
  },
  (t) => [
    index("rules_order_idx").on(t.priority, t.createdAt),
    check("rules_action", sql`${t.action} in ('auto_respond', 'decline', 'hold', 'label')`),
  ],
);

/**
 * What a rule did to a message, one row per action taken (or refused): which rule, which
 * message, the action and its outcome. Written in the transaction that took the action. Kept
 * when the rule is deleted (`ruleId` is then dangling on purpose: the record stays true).
 */
export const ruleRuns = sqliteTable(
  "rule_runs",
  {
    id: text("id").primaryKey(),
    ruleId: text("rule_id").notNull(),
    messageId: text("message_id").notNull(),
    action: text("action", { enum: RULE_ACTIONS }).notNull(),
    outcome: text("outcome").notNull(),
    detailJson: text("detail_json"),
    createdAt: integer("created_at").notNull(),
  },
  (t) => [index("rule_runs_rule_idx").on(t.ruleId, t.createdAt), index("rule_runs_message_idx").on(t.messageId)],
);

