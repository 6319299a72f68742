import type { rules } from "../../../db/schema/index.ts";
import type { RuleMatch } from "./match.ts";
import type { RuleAction } from "../rule-input.ts";

export interface RuleView {
  id: string;
  name: string;
  enabled: boolean;
  priority: number;
  match: RuleMatch;
  action: RuleAction;
  createdAt: string;
  updatedAt: string;
}

export interface StoredMatch extends RuleMatch {
  /** Canonical principals of `senders`, computed when the rule was written. */
  senderPrincipals?: string[];
}

export function ruleView(row: typeof rules.$inferSelect): RuleView {
  const { senderPrincipals: _p, ...match } = JSON.parse(row.matchJson) as StoredMatch;
  return { id: row.id, name: row.name, enabled: row.enabled, priority: row.priority, match, action: JSON.parse(row.actionJson) as RuleAction, createdAt: new Date(row.createdAt).toISOString(), updatedAt: new Date(row.updatedAt).toISOString() };
}
