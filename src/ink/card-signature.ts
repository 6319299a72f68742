// Agent Card proof (INK §13): `cardSignature` = {keyId, signature}, Ed25519 over
// `ink/agent-card\n` + JCS(card minus only `cardSignature`), by the card's current active signing
// key (legacy card: keyId `bootstrap`, the top-level key), rooted by principal kind. An invalid
// proof rejects the card; it is never read as an unsigned card.
// Choices where the text is open: docs/decisions/ink-card-signature.md.
import { hasOwn, isPlainObject, utf8 } from "./bytes.ts";
import { type Ed25519Verifier, ed25519Sign, nobleStrictVerifier } from "./ed25519.ts";
import { canonicalize, type CanonicalFailure } from "./jcs.ts";
import { decodeEd25519PublicKey } from "./multibase.ts";
import { agentIdPublicKey, KEY_DERIVED_PREFIXES } from "./principal.ts";
import {
  type RotationChainFailure,
  cardSigningSet,
  equalBytes,
  parseRotationChain,
  sameSigningSet,
  walkLinks,
} from "./rotation-chain.ts";
import { decodeSignature, encodeSignature } from "./signature-encoding.ts";

export const CARD_SIGNATURE_DOMAIN = "ink/agent-card\n";
/** INK §13 / [C16]: the keyId a legacy (single-key) card is signed under. */
export const LEGACY_CARD_KEY_ID = "bootstrap";

export type CardProofFailure =
  | "malformed_proof"
  | "missing_key_set_version"
  | "signer_not_current"
  | "signer_not_active"
  | "invalid_signer_key"
  | "bad_signature"
  | "unrooted"
  | RotationChainFailure
  | "chain_head_version"
  | "chain_head_mismatch"
  | "did_web_key_not_found";

/**
 * How the signer was rooted: the key-derived id's genesis key, a rotation chain from it, a key of
 * the resolved did:web document, or nothing (did:web document not resolved, or a principal kind
 * INK gives no anchor for).
 */
export type CardAnchor = "genesis" | "rotation-chain" | "did-web" | "unanchored";

export type CardProofResult =
  | { ok: true; kind: "unsigned" }
  | { ok: true; kind: "signed"; keyId: string; publicKey: Uint8Array; keySetVersion: number; anchor: CardAnchor }
  | { ok: false; reason: CardProofFailure; issue: string };

export type CardProofOptions = {
  /** Strict Ed25519 backend (default: noble, strict). */
  verifier?: Ed25519Verifier;
  /**
   * did:web cards only: the Ed25519 keys of the verification methods of the resolved DID document.
   * Absent or null = the document was not resolved; the result is then `anchor: "unanchored"`.
   */
  didWebKeys?: readonly Uint8Array[] | null;
};

/** The signed text of a card: `ink/agent-card\n` + JCS(card minus `cardSignature`). */
export function agentCardSigningInput(card: unknown): { ok: true; text: string } | { ok: false; reason: CanonicalFailure } {
  if (!isPlainObject(card)) return { ok: false, reason: "not_json" };
  const { cardSignature: _omit, ...rest } = card;
  const jcs = canonicalize(rest);
  return jcs.ok ? { ok: true, text: CARD_SIGNATURE_DOMAIN + jcs.text } : { ok: false, reason: jcs.reason };
}

/**
 * Sign a card (any old `cardSignature` replaced) with the secret key of `keyId`, which must be the
 * card's `currentSigningKeyId` (or `bootstrap` on a legacy card) for verifiers to accept it.
 */
export function signAgentCard<T extends Record<string, unknown>>(
  card: T,
  secretKey: Uint8Array,
  keyId: string,
): { ok: true; card: T & { cardSignature: { keyId: string; signature: string } } } | { ok: false; reason: CanonicalFailure } {
  const input = agentCardSigningInput(card);
  if (!input.ok) return input;
  const { cardSignature: _old, ...rest } = card;
  const signature = encodeSignature(ed25519Sign(utf8(input.text), secretKey));
  return { ok: true, card: { ...(rest as T), cardSignature: { keyId, signature } } };
}

/**
 * Verify a card's proof (INK §13). No `cardSignature` → `unsigned`. Otherwise: signer selection
 * (key-set card: keyId = `currentSigningKeyId`, an `active` entry; legacy card: `bootstrap` and
 * `publicKeyMultibase`), strict Ed25519 over the signing input, a positive `keySetVersion`, then
 * rooting: key-derived id → the genesis key or a `rotationChain` from it whose head is this card's
 * version and signing set; did:web → a key of the resolved DID document. Never throws.
 */
export function verifyAgentCardProof(card: unknown, options: CardProofOptions = {}): CardProofResult {
  try {
    return verify(card, options);
  } catch {
    return reject("malformed_proof", "card proof could not be checked");
  }
}

/**
 * The key a card names as its signer (the selection rule of INK §13), or why there is none.
 * Shared with the continuity check.
 */
export function selectCardSigner(card: Record<string, unknown>): { ok: true; keyId: string; publicKey: Uint8Array } | { ok: false; reason: CardProofFailure; issue: string } {
  const proof = card.cardSignature;
  if (!isPlainObject(proof) || typeof proof.keyId !== "string" || proof.keyId.length < 1 || proof.keyId.length > 128) {
    return reject("malformed_proof", "cardSignature must be {keyId, signature}");
  }
  const keyId = proof.keyId;
  const keys = card.keys;
  if (isPlainObject(keys) && Array.isArray(keys.signing)) {
    if (keyId !== card.currentSigningKeyId) return reject("signer_not_current", `cardSignature.keyId ${JSON.stringify(keyId)} is not the currentSigningKeyId`);
    const entry = keys.signing.find((k: unknown) => isPlainObject(k) && k.keyId === keyId) as Record<string, unknown> | undefined;
    // INK §10: a present `revokedAt` makes a key unusable whatever its status says.
    if (entry === undefined || entry.status !== "active" || (hasOwn(entry, "revokedAt") && entry.revokedAt !== undefined)) {
      return reject("signer_not_active", `signing key ${JSON.stringify(keyId)} is not an active entry of keys.signing`);
    }
    const publicKey = decodeEd25519PublicKey(entry.publicKeyMultibase);
    if (publicKey === null) return reject("invalid_signer_key", `signing key ${JSON.stringify(keyId)} is not an Ed25519 key`);
    return { ok: true, keyId, publicKey };
  }
  if (keyId !== LEGACY_CARD_KEY_ID) return reject("signer_not_current", `a card without keys.signing is signed under keyId "${LEGACY_CARD_KEY_ID}"`);
  const publicKey = decodeEd25519PublicKey(card.publicKeyMultibase);
  if (publicKey === null) return reject("invalid_signer_key", "publicKeyMultibase is not an Ed25519 key");
  return { ok: true, keyId, publicKey };
}

function verify(card: unknown, options: CardProofOptions): CardProofResult {
  if (!isPlainObject(card)) return reject("malformed_proof", "card is not a JSON object");
  if (!hasOwn(card, "cardSignature") || card.cardSignature === undefined) return { ok: true, kind: "unsigned" };
  const signer = selectCardSigner(card);
  if (!signer.ok) return signer;
  const signature = decodeSignature((card.cardSignature as Record<string, unknown>).signature);
  if (signature === null) return reject("malformed_proof", "cardSignature.signature is not an 86-char base64url Ed25519 signature");
  const input = agentCardSigningInput(card);
  if (!input.ok) return reject("malformed_proof", `card is not canonicalizable under INK's JCS profile (${input.reason})`);
  const verifier = options.verifier ?? nobleStrictVerifier;
  if (!verifier(signer.publicKey, utf8(input.text), signature)) return reject("bad_signature", "cardSignature does not verify under the signing key");
  // INK §11: keySetVersion is a positive integer, required on a signed card (rollback compares it).
  const version = card.keySetVersion;
  if (typeof version !== "number" || !Number.isSafeInteger(version) || version < 1) {
    return reject("missing_key_set_version", "a signed card must carry a positive integer keySetVersion");
  }
  const signed = (anchor: CardAnchor): CardProofResult => ({ ok: true, kind: "signed", keyId: signer.keyId, publicKey: signer.publicKey, keySetVersion: version, anchor });
  const agentId = card.agentId;
  if (typeof agentId === "string" && KEY_DERIVED_PREFIXES.some((p) => agentId.startsWith(p))) {
    const rooted = rootKeyDerived(card, agentId, signer.publicKey, version, verifier);
    return rooted === null ? signed(hasChain(card) ? "rotation-chain" : "genesis") : rooted;
  }
  if (typeof agentId === "string" && agentId.startsWith("did:web:")) {
    const didKeys = options.didWebKeys;
    if (!Array.isArray(didKeys)) return signed("unanchored");
    if (!didKeys.some((k) => k instanceof Uint8Array && equalBytes(k, signer.publicKey))) {
      return reject("did_web_key_not_found", "the signing key is not a verification method of the did:web document");
    }
    return signed("did-web");
  }
  return signed("unanchored");
}

/** Null when the signer of a key-derived card is rooted at its genesis key (INK §13). */
function rootKeyDerived(card: Record<string, unknown>, agentId: string, signer: Uint8Array, version: number, verifier: Ed25519Verifier): CardProofResult | null {
  const genesis = agentIdPublicKey(agentId);
  if (genesis === null) return reject("unrooted", "the agent id does not decode to a genesis key");
  if (!hasChain(card)) {
    return equalBytes(genesis, signer) ? null : reject("unrooted", "the signing key is not the genesis key and the card has no rotationChain");
  }
  const links = parseRotationChain(card.rotationChain);
  if (!Array.isArray(links)) return reject(links.reason, links.issue);
  const walked = walkLinks(links, () => genesis, verifier);
  if (walked !== null) return reject(walked.reason, walked.issue);
  const head = links[links.length - 1]!;
  if (head.keySetVersion !== version) return reject("chain_head_version", `chain head version ${head.keySetVersion} is not the card keySetVersion ${version}`);
  const set = cardSigningSet(card);
  if (set === null || !sameSigningSet(head.signing, set)) return reject("chain_head_mismatch", "chain head signing set differs from keys.signing (keyId, key or status)");
  return null;
}

/** A present, non-empty `rotationChain` (an empty array says nothing and is read as absent). */
function hasChain(card: Record<string, unknown>): boolean {
  return hasOwn(card, "rotationChain") && card.rotationChain !== undefined && !(Array.isArray(card.rotationChain) && card.rotationChain.length === 0);
}

function reject(reason: CardProofFailure, issue: string): { ok: false; reason: CardProofFailure; issue: string } {
  return { ok: false, reason, issue };
}
