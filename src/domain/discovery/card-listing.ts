import { agentIdPublicKey, decodeEd25519PublicKey, type AgentCard } from "../../ink/index.ts";
import type { ListingProfile } from "./listings.ts";

/**
 * Did the agent opt in? INK §11: the card's own discovery descriptor must say `enabled: true`
 * with scope `public` (a descriptor can only narrow the card's visibility, so the card is public too).
 */
export function optedIn(card: AgentCard): boolean {
  return card.discovery?.enabled === true && card.discovery.scope === "public" && (card.visibility ?? "public") === "public";
}

/**
 * Identity binding beyond `card.agentId === from` (checked by the fetch contract): a key-derived
 * agent id embeds its genesis key (INK §2.1), so its card must still list that key as a signing
 * key that is not revoked (a legacy single-key card: as its publicKeyMultibase). A card that
 * claims someone else's key-derived id but lists only its own keys fails here. did:web ids are
 * bound by their host instead (the card URL must be the did:web's own, checked by the caller).
 */
export function cardBoundToId(card: AgentCard, agentId: string): boolean {
  const genesis = agentIdPublicKey(agentId);
  if (genesis === null) return true;
  const same = (multibase: string) => {
    const key = decodeEd25519PublicKey(multibase);
    return key !== null && key.length === genesis.length && key.every((b, i) => b === genesis[i]);
  };
  const signing = card.keys?.signing;
  if (Array.isArray(signing)) return signing.some((k) => k.status !== "revoked" && k.revokedAt === undefined && same(k.publicKeyMultibase));
  return same(card.publicKeyMultibase);
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
