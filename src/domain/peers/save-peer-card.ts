import { eq } from "drizzle-orm";
import type { Db, Tx } from "../../db/client.ts";
import { peerCards } from "../../db/schema/index.ts";
import { checkCardContinuity } from "../../ink/index.ts";
import { nativeStrictVerifier } from "../../security/ed25519-native.ts";
import { findPeerCard } from "./find-peer-card.ts";
import { cardOf } from "./card-of.ts";
import { type PeerCardRow, CARD_TTL_MS, type PeerCardUpdate } from "./peer-cards.ts";

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
