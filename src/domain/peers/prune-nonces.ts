import { relaxedTransaction } from "../../db/client.ts";
import { pruneNonceRows } from "../../db/nonce-index.ts";
import type { Ctx } from "../context.ts";

/** Nonces are kept well past the freshness window (5 min old, 30 s ahead) so a replay always meets its twin. */
export const NONCE_RETENTION_MS = 15 * 60 * 1000;

/**
 * Deletes up to `limit` of the oldest nonces past retention (and the in-memory index forgets them:
 * db/nonce-index.ts) and returns how many. The maintenance job calls it in chunks with the event
 * loop given back in between: at a sustained 1,000 intents/s a minute's expired nonces are 60,000
 * rows, one statement of ~1 s on the event loop (issue 18). The commit does not fsync on the event
 * loop (relaxedTransaction): a nonce past retention that a power loss brings back is only deleted
 * again, and one the index forgot while its row came back is outside the freshness window anyway.
 */
export function pruneNonces(ctx: Pick<Ctx, "db" | "clock">, limit = Number.MAX_SAFE_INTEGER): number {
  const cutoff = ctx.clock.now() - NONCE_RETENTION_MS;
  return relaxedTransaction(ctx.db, () => pruneNonceRows(ctx.db, cutoff, limit));
}
