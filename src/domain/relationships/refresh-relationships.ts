import { inArray } from "drizzle-orm";
import { relaxedTransaction, transaction } from "../../db/client.ts";
import { connections } from "../../db/schema/index.ts";
import type { Ctx } from "../context.ts";
import { eventPeersAfter, readCursor, writeCursor } from "../internal/events.ts";
import { applyScores, CHUNK } from "./internal/apply-scores.ts";
import { MIN_RESCORE_MS, stateOf } from "./internal/traffic-state.ts";

const CURSOR = "relationships";
const BATCH = 500;

/** Work left over when a step stopped early because `shouldYield` said so. */
export interface StepResult {
  read: number;
  more: boolean;
}

/**
 * Recomputes layer and health of the connections whose traffic changed since the last run (read
 * from the events log), then moves the cursor. Works in chunks and stops early when `shouldYield`
 * returns true (the job then gives the event loop back and calls again), so a burst of traffic
 * never holds the loop for long. Returns how many events were read and whether work remains.
 */
export function refreshRelationships(ctx: Ctx, shouldYield: () => boolean = () => false): StepResult {
  const { waiting, scoredAt } = stateOf(ctx.db);
  let read = 0;
  // A score time older than the throttle decides nothing: forget it, so every principal that ever
  // sent something (strangers included) does not stay in memory for the life of the process.
  const start = ctx.clock.now();
  for (const [p, at] of scoredAt) if (start - at >= MIN_RESCORE_MS) scoredAt.delete(p);
  for (;;) {
    const now = ctx.clock.now();
    const due = [...waiting].filter((p) => now - (scoredAt.get(p) ?? -Infinity) >= MIN_RESCORE_MS);
    for (let i = 0; i < due.length; i += CHUNK) {
      const chunk = due.slice(i, i + CHUNK);
      transaction(ctx.db, (tx) => applyScores(tx, now, tx.select().from(connections).where(inArray(connections.principal, chunk)).all()));
      for (const p of chunk) {
        waiting.delete(p);
        scoredAt.set(p, now);
      }
      if (shouldYield()) return { read, more: true };
    }
    const after = readCursor(ctx.db, CURSOR);
    const batch = eventPeersAfter(ctx.db, after, BATCH);
    if (batch.length === 0) return { read, more: false };
    // Events without a peer (among them the layer and health changes this job logs) move the cursor and nothing else.
    const peers = batch.filter((e) => e.peerPrincipal !== null);
    for (const e of peers) waiting.add(e.peerPrincipal!);
    // The peers read are remembered in memory and rescored later; a cursor move lost to a power
    // loss only re-reads these events (rescoring is a recomputation).
    relaxedTransaction(ctx.db, (tx) => writeCursor(tx, CURSOR, batch.at(-1)!.seq, now));
    read += peers.length;
    if (peers.length > 0 && shouldYield()) return { read, more: true };
  }
}
