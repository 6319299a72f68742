import type { AgentCard } from "../../../ink/index.ts";
import type { ListingProfile } from "./listings.ts";

/**
 * Did the agent opt in? INK §11: the card's own discovery descriptor must say `enabled: true`
 * with scope `public` (a descriptor can only narrow the card's visibility, so the card is public too).
 */
export function optedIn(card: AgentCard): boolean {
  return card.discovery?.enabled === true && card.discovery.scope === "public" && (card.visibility ?? "public") === "public";
}

/**
 * What a directory indexes from a card: names from the card, the card's public profile snapshot
 * (validated with the card), the descriptor's tags, and Kith's `location`/`roles` descriptor
 * members when well-formed (ignored otherwise: INK treats them as unknown members).
 */
export function listingProfileFromCard(card: AgentCard): ListingProfile {
  const snapshot = card.profileSnapshot;
  const descriptor = (card.discovery ?? {}) as Record<string, unknown>;
  const location = typeof descriptor.location === "string" && descriptor.location.length <= 200 ? descriptor.location.trim() || null : null;
  const roles = Array.isArray(descriptor.roles) && descriptor.roles.length <= 16 && descriptor.roles.every((r) => typeof r === "string" && r.length >= 1 && r.length <= 100) ? (descriptor.roles as string[]) : [];
  return {
    handle: card.handle,
    displayName: card.displayName,
    headline: snapshot?.headline ?? "",
    bio: snapshot?.headline || card.displayName,
    skills: snapshot?.skills ?? [],
    interests: snapshot?.interests ?? [],
    openTo: snapshot?.openTo ?? [],
    roles,
    tags: card.discovery?.tags ?? [],
    location,
  };
}
