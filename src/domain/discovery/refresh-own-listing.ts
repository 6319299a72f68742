import { transaction } from "../../db/client.ts";
import type { Ctx } from "../context.ts";
import { ownIdentity } from "../federation/own-identity.ts";
import { ownProfileSnapshot } from "../profile/own-snapshot.ts";
import type { DiscoveryDeps } from "./deps.ts";
import { profileOf, saveListing } from "./listings.ts";
import { findOwnListing, ownPrincipal, selfProfile } from "./own-publication.ts";
import { queueDirectoryPushes } from "./queue-directory-pushes.ts";

/**
 * Keeps the node's own listing in step with the agent and its `public` profile snapshot while
 * published (a new handle, display name or snapshot shows in search without publishing again),
 * and pushes a fresh publish to the directories when something changed. True when it did.
 */
export function refreshOwnListing(ctx: Ctx, deps: DiscoveryDeps): boolean {
  const own = ownIdentity(ctx.db, deps.federation.node);
  const principal = own ? ownPrincipal(own.agent, deps.federation.node.wordmark) : null;
  if (!own || !principal) return false;
  const now = ctx.clock.now();
  const changed = transaction(ctx.db, (tx) => {
    const row = findOwnListing(tx, own.agent, deps.federation.node.wordmark);
    if (row?.status !== "listed") return false;
    const before = profileOf(row);
    const profile = selfProfile(own.agent, ownProfileSnapshot(tx, "public"), { tags: before.tags, location: before.location, roles: before.roles });
    if (JSON.stringify(profile) === JSON.stringify(before) && row.agentId === own.agentId && row.cardUrl === own.cardUrl) return false;
    saveListing(tx, { principal, agentId: own.agentId, cardUrl: own.cardUrl, source: "self", profile }, now, null);
    queueDirectoryPushes(tx, ctx.ids, deps.directories, "publish", now);
    return true;
  });
  if (changed) {
    ctx.log.info("own listing refreshed from the profile", { directories: deps.directories.length });
    if (deps.directories.length > 0) deps.wakePusher();
  }
  return changed;
}
