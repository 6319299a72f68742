import { transaction } from "../../db/client.ts";
import type { With } from "../context.ts";
import { ownIdentity } from "../agent/own-identity.ts";
import { ownProfileSnapshot } from "../profile/own-profile-snapshot.ts";
import { profileOf, saveListing } from "./internal/listings.ts";
import { ownPrincipal, selfProfile } from "./internal/own-publication.ts";
import { findOwnListing } from "./find-own-listing.ts";
import { queueDirectoryPushes } from "./internal/queue-directory-pushes.ts";

/**
 * Keeps the node's own listing in step with the agent and its `public` profile snapshot while
 * published (a new handle, display name or snapshot shows in search without publishing again),
 * and pushes a fresh publish to the directories when something changed. True when it did.
 */
export function refreshOwnListing(ctx: With<"node" | "directory" | "wake">): boolean {
  const own = ownIdentity(ctx.db, ctx.node);
  const principal = own ? ownPrincipal(own.agent, ctx.node.wordmark) : null;
  if (!own || !principal) return false;
  const now = ctx.clock.now();
  const changed = transaction(ctx.db, (tx) => {
    const row = findOwnListing(tx, own.agent, ctx.node.wordmark);
    if (row?.status !== "listed") return false;
    const before = profileOf(row);
    const profile = selfProfile(own.agent, ownProfileSnapshot(tx, "public"), { tags: before.tags, location: before.location, roles: before.roles });
    if (JSON.stringify(profile) === JSON.stringify(before) && row.agentId === own.agentId && row.cardUrl === own.cardUrl) return false;
    saveListing(tx, { principal, agentId: own.agentId, cardUrl: own.cardUrl, source: "self", profile }, now, null);
    queueDirectoryPushes(tx, ctx.ids, ctx.directory.directories, "publish", now);
    return true;
  });
  if (changed) {
    ctx.log.info("own listing refreshed from the profile", { directories: ctx.directory.directories.length });
    if (ctx.directory.directories.length > 0) ctx.wake.directoryPusher();
  }
  return changed;
}
