import { relaxedTransaction } from "../../db/client.ts";
import type { Ctx } from "../context.ts";
import { IDEMPOTENCY_MS } from "./send-ext-intent.ts";

/**
 * Idempotency-Key answers past their 24 h (POST /ext/v1/intents no longer reads them): the
 * maintenance job drops them, up to `limit` of the oldest per call, with the event loop given back
 * between calls and no fsync on it (relaxedTransaction: an answer past its 24 h that a power loss
 * brings back is never read, and deleted again). A busy extension writes one a request: pruning a
 * minute of them in one statement would hold the event loop (issue 18, as with replay nonces).
 */
export function pruneIdempotencyKeys(ctx: Pick<Ctx, "db" | "clock">, limit = Number.MAX_SAFE_INTEGER): number {
  const cutoff = ctx.clock.now() - IDEMPOTENCY_MS;
  return relaxedTransaction(ctx.db, () =>
    ctx.db.$client.query("DELETE FROM extension_idempotency WHERE rowid IN (SELECT rowid FROM extension_idempotency WHERE created_at < ?1 ORDER BY created_at LIMIT ?2)").run(cutoff, limit).changes,
  );
}
