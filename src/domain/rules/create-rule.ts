import { count } from "drizzle-orm";
import { transaction } from "../../db/client.ts";
import { rules } from "../../db/schema/index.ts";
import type { Ctx } from "../context.ts";
import { conflict } from "../internal/errors.ts";
import { recordEvent } from "../internal/events.ts";
import { MAX_RULES, type CreateRuleInput } from "./rule-input.ts";
import { ruleView, type RuleView, type StoredMatch } from "./internal/rule-view.ts";
import { checkRule } from "./internal/check-rule.ts";
import { requireOwner } from "../internal/actors.ts";

export { CreateRuleInput } from "./rule-input.ts";

/** The owner adds an automation rule; it applies to messages received from now on. */
export function createRule(ctx: Ctx, input: CreateRuleInput): RuleView {
  requireOwner(ctx, "writes rules");
  const senderPrincipals = checkRule(input.match, input.action);
  const now = ctx.clock.now();
  const match: StoredMatch = { ...input.match, ...(senderPrincipals.length ? { senderPrincipals } : {}) };
  return transaction(ctx.db, (tx) => {
    const n = tx.select({ n: count() }).from(rules).get()?.n ?? 0;
    if (n >= MAX_RULES) throw conflict(`at most ${MAX_RULES} rules; delete one first`);
    const row = {
      id: `rule_${ctx.ids.next()}`,
      name: input.name,
      enabled: input.enabled ?? true,
      priority: input.priority ?? 100,
      matchJson: JSON.stringify(match),
      action: input.action.type,
      actionJson: JSON.stringify(input.action),
      createdAt: now,
      updatedAt: now,
    };
    tx.insert(rules).values(row).run();
    recordEvent(tx, "rule.created", now, { subjectId: row.id });
    return ruleView(row);
  });
}
