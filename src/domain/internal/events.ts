import { and, asc, eq, gt, inArray, max, sql } from "drizzle-orm";
import type { Db, Tx } from "../../db/client.ts";
import { prepared } from "../../db/prepared.ts";
import { events, jobCursors } from "../../db/schema/index.ts";

export type EventRow = typeof events.$inferSelect;

/**
 * Background jobs read the append-only `events` log in `seq` order and remember how far they got
 * in `job_cursors`, so work committed by the request path is picked up exactly once, after commit,
 * and nothing is lost across a restart.
 */
export function readCursor(db: Db, name: string): number {
  return jobReads(db).cursor.get({ name })?.seq ?? 0;
}

/**
 * The background jobs' reads, prepared once per connection: the jobs run after every group commit
 * under inbound load, and building these drizzle queries on each pass was ~14% of the node's CPU
 * per intent (issue 18's profile: `readCursor`, `lastEventSeq`, the peers scan, the rules list).
 */
function jobReads(db: Db) {
  return prepared(db, "job-reads", (d) => ({
    cursor: d.select({ seq: jobCursors.seq }).from(jobCursors).where(eq(jobCursors.name, sql.placeholder("name"))).prepare(),
    lastSeq: d.select({ seq: max(events.seq) }).from(events).prepare(),
    peersAfter: d
      .select({ seq: events.seq, peerPrincipal: events.peerPrincipal })
      .from(events)
      .where(gt(events.seq, sql.placeholder("seq")))
      .orderBy(asc(events.seq))
      .limit(sql.placeholder("limit"))
      .prepare(),
    after: d.select().from(events).where(gt(events.seq, sql.placeholder("seq"))).orderBy(asc(events.seq)).limit(sql.placeholder("limit")).prepare(),
  }));
}

export function writeCursor(tx: Db | Tx, name: string, seq: number, at: number): void {
  tx.insert(jobCursors).values({ name, seq, updatedAt: at }).onConflictDoUpdate({ target: jobCursors.name, set: { seq, updatedAt: at } }).run();
}

/** Events after `seq`, oldest first; only the given types when `types` is set. */
export function eventsAfter(db: Db, seq: number, limit: number, types?: string[]): EventRow[] {
  if (!types) return jobReads(db).after.all({ seq, limit });
  return db.select().from(events).where(and(gt(events.seq, seq), inArray(events.type, types))).orderBy(asc(events.seq)).limit(limit).all();
}

/** `seq` and peer of the events after `seq`, oldest first (for jobs that only need who changed). */
export function eventPeersAfter(db: Db, seq: number, limit: number): Array<{ seq: number; peerPrincipal: string | null }> {
  return jobReads(db).peersAfter.all({ seq, limit });
}

/** The newest `seq` in the log (0 when empty). */
export function lastEventSeq(db: Db): number {
  return jobReads(db).lastSeq.get()?.seq ?? 0;
}

export function recordEvent(tx: Tx, type: string, at: number, data: { subjectId?: string; peerPrincipal?: string; [k: string]: unknown } = {}): void {
  const { subjectId, peerPrincipal, ...rest } = data;
  tx.insert(events)
    .values({ type, subjectId: subjectId ?? null, peerPrincipal: peerPrincipal ?? null, dataJson: Object.keys(rest).length ? JSON.stringify(rest) : null, createdAt: at })
    .run();
}
