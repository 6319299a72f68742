import { inArray } from "drizzle-orm";
import { transaction } from "../../db/client.ts";
import { directoryPushes } from "../../db/schema/index.ts";
import type { Ctx } from "../context.ts";
import { findAgentRow } from "../identity/agent.ts";
import type { DiscoveryDeps } from "./deps.ts";
import { findOwnListing } from "./own-publication.ts";
import { queueDirectoryPushes } from "./queue-directory-pushes.ts";

/**
 * At start: a directory added to KITH_DIRECTORIES after the owner published (or unpublished) gets
 * the current state pushed, so configuring a directory is enough. Returns how many were queued.
 */
export function reconcileDirectoryPushes(ctx: Ctx, deps: Pick<DiscoveryDeps, "directories" | "federation">): number {
  if (deps.directories.length === 0) return 0;
  const agent = findAgentRow(ctx.db);
  if (!agent) return 0;
  const now = ctx.clock.now();
  return transaction(ctx.db, (tx) => {
    const own = findOwnListing(tx, agent, deps.federation.node.wordmark);
    if (!own) return 0;
    const known = new Set(tx.select({ d: directoryPushes.directory }).from(directoryPushes).where(inArray(directoryPushes.directory, [...deps.directories])).all().map((r) => r.d));
    const missing = deps.directories.filter((d) => !known.has(d));
    queueDirectoryPushes(tx, ctx.ids, missing, own.status === "listed" ? "publish" : "unpublish", now);
    return missing.length;
  });
}
