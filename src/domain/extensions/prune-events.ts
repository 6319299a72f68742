import { gte, max, min } from "drizzle-orm";
import { relaxedTransaction } from "../../db/client.ts";
import { events, jobCursors } from "../../db/schema/index.ts";
import type { Ctx } from "../context.ts";

/** The event log's retention (EXTENSIONS §3.2): 30 days, but never fewer than the newest 10,000. */
export const EVENT_RETENTION_MS = 30 * 24 * 3600_000;
export const EVENT_FLOOR = 10_000;

/**
 * Drops the oldest events: older than the retention, not among the newest EVENT_FLOOR, and read
 * by every job (every job_cursors row is past them). The feed then answers `gap` to a
 * cursor older than what is kept. Run by the maintenance job, `limit` events at a time with the
 * event loop given back in between (at a sustained 1,000 intents/s a minute past retention is
 * 60,000 events: one statement of ~1 s on the event loop, issue 18). The commit does not fsync on
 * the event loop (relaxedTransaction): events a power loss brings back are past retention, and
 * only deleted again.
 */
export function pruneEvents(ctx: Pick<Ctx, "db" | "clock">, limit = Number.MAX_SAFE_INTEGER): number {
  const newest = ctx.db.select({ seq: max(events.seq) }).from(events).get()?.seq ?? 0;
  const slowestJob = ctx.db.select({ seq: min(jobCursors.seq) }).from(jobCursors).get()?.seq ?? null;
  // Only a prefix of the log goes, so what is kept is contiguous and `oldestAvailable` is exact.
  const firstRecent = ctx.db.select({ seq: min(events.seq) }).from(events).where(gte(events.createdAt, ctx.clock.now() - EVENT_RETENTION_MS)).get()?.seq ?? newest + 1;
  const oldest = ctx.db.select({ seq: min(events.seq) }).from(events).get()?.seq ?? 0;
  const below = Math.min(newest - EVENT_FLOOR, slowestJob ?? Number.MAX_SAFE_INTEGER, firstRecent - 1, oldest + limit - 1);
  if (below <= 0 || below < oldest) return 0;
  return relaxedTransaction(ctx.db, () => ctx.db.$client.query("DELETE FROM events WHERE seq <= ?").run(below).changes);
}
