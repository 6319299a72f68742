import { relaxedTransaction } from "../../db/client.ts";
import type { Ctx } from "../context.ts";

/** Nonces are kept well past the freshness window (5 min old, 30 s ahead) so a replay always meets its twin. */
export const NONCE_RETENTION_MS = 15 * 60 * 1000;

/**
 * Deletes up to `limit` of the oldest nonces past retention and returns how many. The maintenance
 * job calls it in chunks with the event loop given back in between: at a sustained 1,000 intents/s
 * a minute's expired nonces are 60,000 rows, one statement of ~1 s on the event loop (issue 18).
 * The commit does not fsync on the event loop (relaxedTransaction): a nonce past retention that a
 * power loss brings back is only deleted again.
 */
export function pruneNonces(ctx: Pick<Ctx, "db" | "clock">, limit = Number.MAX_SAFE_INTEGER): number {
  const cutoff = ctx.clock.now() - NONCE_RETENTION_MS;
  return relaxedTransaction(ctx.db, () =>
    // Oldest first, through the seen_at index: what is left after a chunk is always the newer part.
    ctx.db.$client.query("DELETE FROM inbound_nonces WHERE rowid IN (SELECT rowid FROM inbound_nonces WHERE seen_at < ?1 ORDER BY seen_at LIMIT ?2)").run(cutoff, limit).changes,
  );
}
