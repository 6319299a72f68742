import { eq } from "drizzle-orm";
import type { Db, Tx } from "../../db/client.ts";
import { peerCards } from "../../db/schema/index.ts";
import { bindAgentCard, checkCardContinuity, verifyAgentCardProof, type AgentCard } from "../../ink/index.ts";
import { nativeStrictVerifier } from "../../security/ed25519-native.ts";

export type PeerCardRow = typeof peerCards.$inferSelect;

/** How long a verified card is used before it is fetched again. */
export const CARD_TTL_MS = 60 * 60 * 1000;
/** A stale card still serves while its host is unreachable, but not forever (revocations must land). */
export const STALE_CARD_GRACE_MS = 24 * 60 * 60 * 1000;
/** At most one refetch per principal in this period when a request names an unknown key id. */
export const REFRESH_THROTTLE_MS = 60 * 1000;

export function findPeerCard(db: Db | Tx, principal: string): PeerCardRow | null {
  return db.select().from(peerCards).where(eq(peerCards.principal, principal)).get() ?? null;
}

/**
 * The stored card, bound to its id again on every read (INK §2.1, §13, `bindAgentCard`): cards are
 * stored bound, and this keeps rows written before the rule from speaking with keys it refuses.
 */
export function cardOf(row: PeerCardRow | null): AgentCard | null {
  if (!row?.cardJson) return null;
  let card: AgentCard;
  try {
    card = JSON.parse(row.cardJson) as AgentCard;
  } catch {
    return null;
  }
  if (card === null || typeof card !== "object") return null;
  const bound = bindAgentCard(card, verifyAgentCardProof(card, { verifier: nativeStrictVerifier }));
  return bound.ok ? bound.card : null;
}

export interface PeerCardUpdate {
  principal: string;
  agentId: string;
  cardUrl?: string | null;
  card?: { json: string; signingSet: boolean } | null;
  refreshAttempt?: boolean;
}

/**
 * Records what was learned about a peer. A card is stored only after full verification; the
 * signing-set ratchet only ever goes from false to true (INK §10 authority rule), and a stored
 * signed card is never replaced by one that breaks continuity with it (INK §13) — checked again
 * here, inside the write, so two fetches racing cannot store an older card over a newer one.
 */
export function savePeerCard(tx: Db | Tx, update: PeerCardUpdate, now: number): void {
  const existing = findPeerCard(tx, update.principal);
  const card = update.card && continues(existing, update.card.json) ? update.card : null;
  const values = {
    agentId: update.agentId,
    cardUrl: update.cardUrl ?? existing?.cardUrl ?? null,
    cardJson: card ? card.json : (existing?.cardJson ?? null),
    fetchedAt: card ? now : (existing?.fetchedAt ?? null),
    expiresAt: card ? now + CARD_TTL_MS : (existing?.expiresAt ?? null),
    signingSetObserved: (existing?.signingSetObserved ?? false) || (card?.signingSet ?? false),
    lastRefreshAt: update.refreshAttempt ? now : (existing?.lastRefreshAt ?? null),
    updatedAt: now,
  };
  if (existing) tx.update(peerCards).set(values).where(eq(peerCards.principal, update.principal)).run();
  else tx.insert(peerCards).values({ principal: update.principal, createdAt: now, ...values }).run();
}

function continues(existing: PeerCardRow | null, json: string): boolean {
  const cached = cardOf(existing);
  if (cached === null || cached.cardSignature === undefined) return true;
  try {
    return checkCardContinuity(cached, JSON.parse(json), { verifier: nativeStrictVerifier }).ok;
  } catch {
    return false;
  }
}

export function hasSigningSet(card: AgentCard): boolean {
  return Array.isArray(card.keys?.signing);
}
