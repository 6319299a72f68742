import type { Db, Tx } from "../../../db/client.ts";
import { normalizePrincipal } from "../../../ink/index.ts";
import type { NodeIdentity } from "../../context.ts";
import type { AgentRow } from "../../agent/find-agent-row.ts";
import { agentIdOf } from "../../agent/find-agent-row.ts";
import type { ProfileSnapshot } from "../../profile/own-profile-snapshot.ts";
import { findListing, profileOf, type ListingProfile, type ListingRow } from "./listings.ts";

/**
 * The card's INK `discovery` descriptor (INK §11): opt-in, scope `public` (never wider than the
 * card's visibility, which is public). `location` and `roles` are Kith's own members; INK
 * validators ignore unknown descriptor members.
 */
export interface DiscoveryDescriptor {
  enabled: boolean;
  scope: "public";
  tags?: string[];
  queryable?: boolean;
  updatedAt: string;
  location?: string;
  roles?: string[];
}

/** This node's own listing row (source `self`), null when the owner never published. */
export function findOwnListing(db: Db | Tx, agent: Pick<AgentRow, "genesisKey">, wordmark: NodeIdentity["wordmark"]): ListingRow | null {
  const principal = ownPrincipal(agent, wordmark);
  const row = principal ? findListing(db, principal) : null;
  return row?.source === "self" ? row : null;
}

export function ownPrincipal(agent: Pick<AgentRow, "genesisKey">, wordmark: NodeIdentity["wordmark"]): string | null {
  const n = normalizePrincipal(agentIdOf(agent, wordmark));
  return n.ok ? n.principal : null;
}

/** The descriptor for the card: absent before the first publish, `enabled: false` after unpublish. */
export function discoveryDescriptor(row: ListingRow | null): DiscoveryDescriptor | null {
  if (!row) return null;
  const updatedAt = new Date(row.updatedAt).toISOString();
  if (row.status !== "listed") return { enabled: false, scope: "public", updatedAt };
  const p = profileOf(row);
  return {
    enabled: true,
    scope: "public",
    tags: p.tags,
    queryable: true,
    updatedAt,
    ...(p.location ? { location: p.location } : {}),
    ...(p.roles.length > 0 ? { roles: p.roles } : {}),
  };
}

/**
 * What this node lists for its own agent: the public profile snapshot, names from the agent, and
 * the owner's tags, location and roles. The snapshot has no bio, so bio is its headline (or the
 * display name when the headline is empty).
 */
export function selfProfile(agent: AgentRow, snapshot: ProfileSnapshot, extra: { tags: string[]; location: string | null; roles: string[] }): ListingProfile {
  return {
    handle: agent.handle,
    displayName: agent.displayName,
    headline: snapshot.headline,
    bio: snapshot.headline || agent.displayName,
    skills: snapshot.skills,
    interests: snapshot.interests,
    openTo: snapshot.openTo,
    roles: extra.roles,
    tags: extra.tags,
    location: extra.location,
  };
}
