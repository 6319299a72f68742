import { eq } from "drizzle-orm";
import { rules } from "../../db/schema/index.ts";
import type { Ctx } from "../context.ts";
import { notFound } from "../internal/errors.ts";
import { ruleView, type RuleView } from "./internal/rule-view.ts";
import { requireOwner } from "../internal/actors.ts";

export function getRule(ctx: Ctx, id: string): RuleView {
  requireOwner(ctx, "reads rules");
  const row = ctx.db.select().from(rules).where(eq(rules.id, id)).get();
  if (!row) throw notFound("rule");
  return ruleView(row);
}
