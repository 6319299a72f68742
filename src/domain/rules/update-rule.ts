import { eq } from "drizzle-orm";
import { transaction } from "../../db/client.ts";
import { rules } from "../../db/schema/index.ts";
import type { Ctx } from "../context.ts";
import { notFound } from "../internal/errors.ts";
import { recordEvent } from "../internal/events.ts";
import { type RuleAction, type UpdateRuleInput } from "./rule-input.ts";
import { ruleView, type RuleView, type StoredMatch } from "./internal/rule-view.ts";
import { checkRule } from "./internal/check-rule.ts";
import { requireOwner } from "../internal/actors.ts";

export { UpdateRuleInput } from "./rule-input.ts";

/** PATCH: the members given replace the rule's (`match` and `action` each as a whole). */
export function updateRule(ctx: Ctx, id: string, input: UpdateRuleInput): RuleView {
  requireOwner(ctx, "writes rules");
  const now = ctx.clock.now();
  return transaction(ctx.db, (tx) => {
    const row = tx.select().from(rules).where(eq(rules.id, id)).get();
    if (!row) throw notFound("rule");
    const current = ruleView(row);
    const match = input.match ?? current.match;
    const action: RuleAction = input.action ?? current.action;
    const senderPrincipals = checkRule(match, action);
    const stored: StoredMatch = { ...match, ...(senderPrincipals.length ? { senderPrincipals } : {}) };
    const next = {
      name: input.name ?? row.name,
      enabled: input.enabled ?? row.enabled,
      priority: input.priority ?? row.priority,
      matchJson: JSON.stringify(stored),
      action: action.type,
      actionJson: JSON.stringify(action),
      updatedAt: now,
    };
    tx.update(rules).set(next).where(eq(rules.id, id)).run();
    recordEvent(tx, "rule.updated", now, { subjectId: id });
    return ruleView({ ...row, ...next });
  });
}
