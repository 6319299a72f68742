import { and, asc, eq, gt, inArray, max } from "drizzle-orm";
import type { Db, Tx } from "../../db/client.ts";
import { events, jobCursors } from "../../db/schema/index.ts";

export type EventRow = typeof events.$inferSelect;

/**
 * Background jobs read the append-only `events` log in `seq` order and remember how far they got
 * in `job_cursors`, so work committed by the request path is picked up exactly once, after commit,
 * and nothing is lost across a restart.
 */
export function readCursor(db: Db | Tx, name: string): number {
  return db.select({ seq: jobCursors.seq }).from(jobCursors).where(eq(jobCursors.name, name)).get()?.seq ?? 0;
}

export function writeCursor(tx: Db | Tx, name: string, seq: number, at: number): void {
  tx.insert(jobCursors).values({ name, seq, updatedAt: at }).onConflictDoUpdate({ target: jobCursors.name, set: { seq, updatedAt: at } }).run();
}

/** Events after `seq`, oldest first; only the given types when `types` is set. */
export function eventsAfter(db: Db | Tx, seq: number, limit: number, types?: string[]): EventRow[] {
  const filter = types ? and(gt(events.seq, seq), inArray(events.type, types)) : gt(events.seq, seq);
  return db.select().from(events).where(filter).orderBy(asc(events.seq)).limit(limit).all();
}

/** `seq` and peer of the events after `seq`, oldest first (for jobs that only need who changed). */
export function eventPeersAfter(db: Db | Tx, seq: number, limit: number): Array<{ seq: number; peerPrincipal: string | null }> {
  return db.select({ seq: events.seq, peerPrincipal: events.peerPrincipal }).from(events).where(gt(events.seq, seq)).orderBy(asc(events.seq)).limit(limit).all();
}

/** The newest `seq` in the log (0 when empty). */
export function lastEventSeq(db: Db | Tx): number {
  return db.select({ seq: max(events.seq) }).from(events).get()?.seq ?? 0;
}

export function recordEvent(tx: Tx, type: string, at: number, data: { subjectId?: string; peerPrincipal?: string; [k: string]: unknown } = {}): void {
  const { subjectId, peerPrincipal, ...rest } = data;
  tx.insert(events)
    .values({ type, subjectId: subjectId ?? null, peerPrincipal: peerPrincipal ?? null, dataJson: Object.keys(rest).length ? JSON.stringify(rest) : null, createdAt: at })
    .run();
}
