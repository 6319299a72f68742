import { normalizePrincipal } from "../../../ink/index.ts";
import type { NodeIdentity } from "../../context.ts";
import type { AgentRow } from "../../agent/find-agent-row.ts";
import { agentIdOf } from "../../agent/agent-id-of.ts";
import type { ProfileSnapshot } from "../../profile/own-profile-snapshot.ts";
import { type ListingProfile } from "./listings.ts";

export function ownPrincipal(agent: Pick<AgentRow, "genesisKey">, wordmark: NodeIdentity["wordmark"]): string | null {
  const n = normalizePrincipal(agentIdOf(agent, wordmark));
  return n.ok ? n.principal : null;
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
