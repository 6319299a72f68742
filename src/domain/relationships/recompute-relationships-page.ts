import { asc, gt } from "drizzle-orm";
import { transaction } from "../../db/client.ts";
import { connections } from "../../db/schema/index.ts";
import type { Ctx } from "../context.ts";
import { applyScores, CHUNK } from "./internal/apply-scores.ts";
import { stateOf } from "./internal/traffic-state.ts";

/**
 * Every relationship, a page at a time in id order: health decays with time even without traffic
 * (run periodically). Returns the id to continue after, or null when done.
 */
export function recomputeRelationshipsPage(ctx: Ctx, afterId: string | null, pageSize = CHUNK): { changed: number; next: string | null } {
  const now = ctx.clock.now();
  const { scoredAt } = stateOf(ctx.db);
  return transaction(ctx.db, (tx) => {
    const rows = tx
      .select()
      .from(connections)
      .where(afterId === null ? undefined : gt(connections.id, afterId))
      .orderBy(asc(connections.id))
      .limit(pageSize)
      .all();
    for (const r of rows) if (r.principal) scoredAt.set(r.principal, now);
    return { changed: applyScores(tx, now, rows), next: rows.length === pageSize ? rows.at(-1)!.id : null };
  });
}
