// Which keys a card binds to its agent id (INK §2.1, §10, §13). A key-derived id names exactly one
// key by itself, its genesis key. A card is served by whoever controls the URL it was fetched from,
// so anything else it lists (other signing keys, encryption keys) speaks for the id only when the
// card's proof verifies back to the genesis key, directly or through its rotation chain. An
// unsigned card of a key-derived id therefore names the genesis key alone. Reasoning and where the
// rule is applied: docs/decisions/directory-listings.md ("Identity binding").
import type { AgentCard, CardKeyEntry } from "./agent-card.ts";
import type { CardProofResult } from "./card-signature.ts";
import { decodeEd25519PublicKey } from "./multibase.ts";
import { agentIdPublicKey } from "./principal.ts";
import { equalBytes } from "./rotation-chain.ts";

/**
 * Why the bound card's keys speak for its id:
 * - `proof`: key-derived id, signed card rooted at the genesis key or through `rotationChain`:
 *   every key of the card counts;
 * - `genesis`: key-derived id, unsigned card: only the card's entries for the genesis key count
 *   (with the status and window the card gives them: a card may narrow, never widen), and no
 *   encryption key;
 * - `other`: not a key-derived id (did:web, did:plc, …): INK roots nothing in such an id; its keys
 *   are as good as the place the card came from (a did:web's own host, a URL the operator chose),
 *   which the caller answers for.
 */
export type CardBindingBasis = "proof" | "genesis" | "other";

export type CardBinding =
  | { ok: true; card: AgentCard; basis: CardBindingBasis }
  | { ok: false; reason: "card_identity_mismatch"; issue: string };

/**
 * The card restricted to the keys it may bind to its `agentId`, given the result of
 * `verifyAgentCardProof` on this very card. A key-derived card with no proof that does not list
 * its genesis key at all binds nothing (`card_identity_mismatch`): it is not that agent's card.
 * The returned card is the input itself when nothing is removed; otherwise a copy whose
 * `keys.signing` keeps only the genesis entries (a legacy card keeps its `publicKeyMultibase`, which
 * must be the genesis key) and whose encryption keys are gone. Binding a bound card changes nothing.
 * @example bindAgentCard(card, verifyAgentCardProof(card)) // { ok: true, card, basis: "genesis" }
 */
export function bindAgentCard(card: AgentCard, proof: CardProofResult): CardBinding {
  const genesis = agentIdPublicKey(card.agentId);
  if (genesis === null) return { ok: true, card, basis: "other" };
  // A failed proof binds nothing (INK §13: an invalid proof rejects the card, it is never read as unsigned).
  if (!proof.ok) return mismatch(`the card proof does not verify (${proof.reason})`);
  if (proof.kind === "signed" && (proof.anchor === "genesis" || proof.anchor === "rotation-chain")) return { ok: true, card, basis: "proof" };
  const signing = card.keys?.signing;
  if (!Array.isArray(signing)) {
    const legacy = decodeEd25519PublicKey(card.publicKeyMultibase);
    if (legacy === null || !equalBytes(legacy, genesis)) return mismatch("an unsigned card without keys.signing must carry the genesis key as publicKeyMultibase");
    return { ok: true, card: withoutEncryption(card), basis: "genesis" };
  }
  const own = signing.filter((k) => isGenesisEntry(k, genesis));
  if (own.length === 0) return mismatch("an unsigned card must list the key its agent id is derived from");
  if (own.length === signing.length && !hasEncryption(card)) return { ok: true, card, basis: "genesis" };
  const { currentEncryptionKeyId: _e, ...rest } = card;
  return { ok: true, card: { ...rest, keys: { ...card.keys, signing: own, encryption: [] } } as AgentCard, basis: "genesis" };
}

function isGenesisEntry(entry: CardKeyEntry, genesis: Uint8Array): boolean {
  const key = decodeEd25519PublicKey(entry?.publicKeyMultibase);
  return key !== null && equalBytes(key, genesis);
}

function hasEncryption(card: AgentCard): boolean {
  return (Array.isArray(card.keys?.encryption) && card.keys.encryption.length > 0) || card.currentEncryptionKeyId !== undefined;
}

function withoutEncryption(card: AgentCard): AgentCard {
  if (!hasEncryption(card)) return card;
  const { currentEncryptionKeyId: _e, ...rest } = card;
  return (card.keys === undefined ? rest : { ...rest, keys: { ...card.keys, encryption: [] } }) as AgentCard;
}

function mismatch(issue: string): CardBinding {
  return { ok: false, reason: "card_identity_mismatch", issue };
}
