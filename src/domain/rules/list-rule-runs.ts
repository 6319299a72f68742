import { and, desc, eq, lt, or, type SQL } from "drizzle-orm";
import * as v from "valibot";
import { messages, ruleRuns, rules, type RuleActionType } from "../../db/schema/index.ts";
import type { Ctx } from "../context.ts";
import { notFound } from "../internal/errors.ts";
import { DEFAULT_LIMIT, decodeCursor, PageQuery, pageOf, type Page } from "../internal/pagination.ts";
import { requireOwner } from "../internal/actors.ts";

export const RuleRunsQuery = v.object({ ...PageQuery.entries });
export type RuleRunsQuery = v.InferOutput<typeof RuleRunsQuery>;

export interface RuleRunView {
  id: string;
  ruleId: string;
  /** The inbound message's envelope id and local id. */
  message: { id: string | null; messageId: string };
  action: RuleActionType;
  /** labeled, held, already_held, sent, drafted, rejected, suggested, suppressed, skipped, failed. */
  outcome: string;
  detail: Record<string, unknown> | null;
  createdAt: string;
}

/** What a rule did, newest first (kept after the rule is deleted, hence no 404 for a deleted rule with runs). */
export function listRuleRuns(ctx: Ctx, ruleId: string, query: RuleRunsQuery): Page<RuleRunView> {
  requireOwner(ctx, "reads rules");
  const filters: SQL[] = [eq(ruleRuns.ruleId, ruleId)];
  const cursor = decodeCursor(query.cursor);
  if (cursor) filters.push(or(lt(ruleRuns.createdAt, cursor.at), and(eq(ruleRuns.createdAt, cursor.at), lt(ruleRuns.id, cursor.id)))!);
  const limit = query.limit ?? DEFAULT_LIMIT;
  const rows = ctx.db
    .select({ run: ruleRuns, envelopeId: messages.envelopeId })
    .from(ruleRuns)
    .leftJoin(messages, eq(messages.id, ruleRuns.messageId))
    .where(and(...filters))
    .orderBy(desc(ruleRuns.createdAt), desc(ruleRuns.id))
    .limit(limit + 1)
    .all();
  if (rows.length === 0 && !cursor && !ctx.db.select({ id: rules.id }).from(rules).where(eq(rules.id, ruleId)).get()) throw notFound("rule");
  return pageOf(rows, limit, (r) => ({ at: r.run.createdAt, id: r.run.id }), ({ run, envelopeId }) => ({
    id: run.id,
    ruleId: run.ruleId,
    message: { id: envelopeId, messageId: run.messageId },
    action: run.action,
    outcome: run.outcome,
    detail: run.detailJson ? (JSON.parse(run.detailJson) as Record<string, unknown>) : null,
    createdAt: new Date(run.createdAt).toISOString(),
  }));
}
