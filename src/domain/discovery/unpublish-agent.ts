import { transaction } from "../../db/client.ts";
import type { With } from "../context.ts";
import { noAgentYet } from "../internal/errors.ts";
import { findAgentRow } from "../agent/find-agent-row.ts";
import { getPublication, type PublicationState } from "./get-publication.ts";
import { endListing } from "./internal/listings.ts";
import { findOwnListing } from "./find-own-listing.ts";
import { queueDirectoryPushes } from "./internal/queue-directory-pushes.ts";
import { requireOwner } from "../internal/actors.ts";

/**
 * `POST /api/svc/discovery/unpublish`: delists the agent here (it leaves the index at once), sets
 * the card's descriptor to `enabled: false`, and queues an unpublish to every configured
 * directory. Unpublishing an agent that is not listed is a no-op answer, and still pushes (a
 * directory may hold a listing this node forgot).
 */
export function unpublishAgent(ctx: With<"node" | "directory" | "wake">): PublicationState {
  requireOwner(ctx, "unpublishes the agent");
  const agent = findAgentRow(ctx.db);
  if (!agent) throw noAgentYet();
  const now = ctx.clock.now();
  transaction(ctx.db, (tx) => {
    const row = findOwnListing(tx, agent, ctx.node.wordmark);
    if (row?.status === "listed") endListing(tx, row.id, "delisted", now);
    queueDirectoryPushes(tx, ctx.ids, ctx.directory.directories, "unpublish", now);
  });
  ctx.log.info("agent unpublished", { directories: ctx.directory.directories.length });
  if (ctx.directory.directories.length > 0) ctx.wake.directoryPusher();
  return getPublication(ctx);
}
