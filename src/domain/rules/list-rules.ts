import { and, asc, eq, gt, or, type SQL } from "drizzle-orm";
import * as v from "valibot";
import { rules } from "../../db/schema/index.ts";
import type { Ctx } from "../context.ts";
import { DEFAULT_LIMIT, decodeCursor, PageQuery, pageOf, type Page } from "../internal/pagination.ts";
import { ruleView, type RuleView } from "./internal/rule-view.ts";
import { requireOwner } from "../internal/actors.ts";

export const RulesQuery = v.object({ ...PageQuery.entries });
export type RulesQuery = v.InferOutput<typeof RulesQuery>;

/** Rules in the order they run: ascending priority, then creation. */
export function listRules(ctx: Ctx, query: RulesQuery): Page<RuleView> {
  requireOwner(ctx, "reads rules");
  const filters: SQL[] = [];
  const cursor = decodeCursor(query.cursor);
  if (cursor) {
    // the cursor's sort key is the priority; its id carries "createdAt:id" for the tie-break
    const createdAt = Number(cursor.id.split(":")[0]);
    const id = cursor.id.slice(cursor.id.indexOf(":") + 1);
    filters.push(
      or(gt(rules.priority, cursor.at), and(eq(rules.priority, cursor.at), or(gt(rules.createdAt, createdAt), and(eq(rules.createdAt, createdAt), gt(rules.id, id)))))!,
    );
  }
  const limit = query.limit ?? DEFAULT_LIMIT;
  const rows = ctx.db.select().from(rules).where(and(...filters)).orderBy(asc(rules.priority), asc(rules.createdAt), asc(rules.id)).limit(limit + 1).all();
  return pageOf(rows, limit, (r) => ({ at: r.priority, id: `${r.createdAt}:${r.id}` }), ruleView);
}

