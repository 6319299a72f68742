import { sql } from "drizzle-orm";
import type { Ctx } from "../context.ts";

/**
 * Deletes what mailboxes kept past their retention, also in a mailbox nobody writes to or drains
 * any more (intake and drains prune their own mailbox as they go). Returns how many were deleted.
 */
export function pruneMailboxes(ctx: Pick<Ctx, "db" | "clock">): number {
  const now = ctx.clock.now();
  const removed = ctx.db.all<{ id: string }>(
    sql`DELETE FROM mailbox_items WHERE id IN (SELECT i.id FROM mailbox_items i JOIN mailbox_grants g ON g.id = i.grant_id WHERE i.accepted_at < ${now} - g.retention_ms) RETURNING id`,
  );
  return removed.length;
}
