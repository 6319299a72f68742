import { relaxedTransaction } from "../../db/client.ts";
import type { Ctx } from "../context.ts";

/**
 * Deletes what mailboxes kept past their retention, also in a mailbox nobody writes to or drains
 * any more (intake and drains prune their own mailbox as they go). Returns how many were deleted:
 * up to `limit` of the oldest per call (the maintenance job calls it in steps, the event loop given
 * back in between), committed without an fsync on the event loop (relaxedTransaction: an item past
 * its retention that a power loss brings back is deleted again; issue 18, as with replay nonces).
 */
export function pruneMailboxes(ctx: Pick<Ctx, "db" | "clock">, limit = Number.MAX_SAFE_INTEGER): number {
  const now = ctx.clock.now();
  return relaxedTransaction(ctx.db, () =>
    ctx.db.$client
      .query(
        "DELETE FROM mailbox_items WHERE id IN (SELECT i.id FROM mailbox_items i JOIN mailbox_grants g ON g.id = i.grant_id WHERE i.accepted_at < ?1 - g.retention_ms ORDER BY i.accepted_at LIMIT ?2)",
      )
      .run(now, limit).changes,
  );
}
