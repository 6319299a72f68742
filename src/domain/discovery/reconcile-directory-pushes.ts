import { inArray } from "drizzle-orm";
import { transaction } from "../../db/client.ts";
import { directoryPushes } from "../../db/schema/index.ts";
import type { With } from "../context.ts";
import { findAgentRow } from "../agent/find-agent-row.ts";
import { findOwnListing } from "./find-own-listing.ts";
import { queueDirectoryPushes } from "./internal/queue-directory-pushes.ts";

/**
 * At start: a directory added to KITH_DIRECTORIES after the owner published (or unpublished) gets
 * the current state pushed, so configuring a directory is enough. Returns how many were queued.
 */
export function reconcileDirectoryPushes(ctx: With<"node" | "directory">): number {
  if (ctx.directory.directories.length === 0) return 0;
  const agent = findAgentRow(ctx.db);
  if (!agent) return 0;
  const now = ctx.clock.now();
  return transaction(ctx.db, (tx) => {
    const own = findOwnListing(tx, agent, ctx.node.wordmark);
    if (!own) return 0;
    const known = new Set(tx.select({ d: directoryPushes.directory }).from(directoryPushes).where(inArray(directoryPushes.directory, [...ctx.directory.directories])).all().map((r) => r.d));
    const missing = ctx.directory.directories.filter((d) => !known.has(d));
    queueDirectoryPushes(tx, ctx.ids, missing, own.status === "listed" ? "publish" : "unpublish", now);
    return missing.length;
  });
}
