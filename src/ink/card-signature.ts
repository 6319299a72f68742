// Agent Card proof (INK §13): `cardSignature` = {keyId, signature}, Ed25519 over
// `ink/agent-card\n` + JCS(card minus only `cardSignature`), by the card's current active signing
// key (legacy card: keyId `bootstrap`, the top-level key), rooted by principal kind. An invalid
// proof rejects the card; it is never read as an unsigned card.
// Choices where the text is open: docs/decisions/ink-card-signature.md.
import { hasOwn, isPlainObject, utf8 } from "./bytes.ts";
import { type Ed25519Signer, type Ed25519Verifier, ed25519Sign, nobleStrictVerifier } from "./ed25519.ts";
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

/** INK's reason codes for a card proof that fails (`invalid_card`: structurally malformed). */
export type CardProofFailure =
  | "invalid_card"
  | "duplicate_key_id"
  | "missing_current_signing_key_id"
  | "signer_absent_from_signing"
  | "signer_not_active"
  | "signer_not_current"
  | "legacy_bootstrap_mismatch"
  | "invalid_key_encoding"
  | "invalid_signature"
  | "missing_key_set_version"
  | "genesis_key_mismatch"
  | "unrooted_principal"
  | RotationChainFailure
  | "head_version_mismatch"
  | "head_set_mismatch"
  | "didweb_signer_not_anchored";

/**
 * How the signer was rooted: the key-derived id's genesis key, a rotation chain from it, a key of
 * the resolved did:web document (directly or through a chain rooted there), or nothing (did:web
 * document not resolved).
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
  sign: Ed25519Signer = ed25519Sign,
): { ok: true; card: T & { cardSignature: { keyId: string; signature: string } } } | { ok: false; reason: CanonicalFailure } {
  const input = agentCardSigningInput(card);
  if (!input.ok) return input;
  const { cardSignature: _old, ...rest } = card;
  const signature = encodeSignature(sign(utf8(input.text), secretKey));
  return { ok: true, card: { ...(rest as T), cardSignature: { keyId, signature } } };
}

/**
 * Verify a card's proof (INK §13). No `cardSignature` → `unsigned`. Otherwise: signer selection
 * (key-set card: keyId = `currentSigningKeyId`, an `active` entry; legacy card: `bootstrap` and
 * `publicKeyMultibase`), strict Ed25519 over the signing input, a positive `keySetVersion`, then
 * rooting: key-derived id → the genesis key or a `rotationChain` from it whose head is this card's
 * version and signing set; did:web → a key of the resolved DID document (or a chain rooted in
 * one), `unanchored` while the document is not resolved; any other principal → `unrooted_principal`.
 * Reasons are INK's codes. Never throws.
 */
export function verifyAgentCardProof(card: unknown, options: CardProofOptions = {}): CardProofResult {
  try {
    return verify(card, options);
  } catch {
    return reject("invalid_card", "card proof could not be checked");
  }
}

/**
 * The key a card names as its signer (the selection rule of INK §13), or why there is none.
 * Key-set card: `currentSigningKeyId` present, `cardSignature.keyId` names exactly one entry of
 * `keys.signing`, which is `active` (no `revokedAt`), is the current one and holds an Ed25519 key.
 * Legacy card: keyId `bootstrap` and the top-level key. Shared with the continuity check.
 */
export function selectCardSigner(card: Record<string, unknown>): { ok: true; keyId: string; publicKey: Uint8Array } | { ok: false; reason: CardProofFailure; issue: string } {
  const proof = card.cardSignature;
  if (!isPlainObject(proof) || typeof proof.keyId !== "string" || proof.keyId.length < 1 || proof.keyId.length > 128) {
    return reject("invalid_card", "cardSignature must be {keyId, signature}");
  }
  const keyId = proof.keyId;
  const keys = card.keys;
  if (isPlainObject(keys) && hasOwn(keys, "signing") && keys.signing !== undefined) {
    // A present but malformed set is never read as absent: that would demote the card to its
    // legacy key and stop consulting the set that retires or revokes it (vectors *-bootstrap-signed).
    if (!Array.isArray(keys.signing)) return reject("invalid_card", "keys.signing is not an array");
    const ids = keys.signing.flatMap((k: unknown) => (isPlainObject(k) && typeof k.keyId === "string" ? [k.keyId] : []));
    if (new Set(ids).size !== ids.length) return reject("duplicate_key_id", "keys.signing repeats a keyId");
    if (typeof card.currentSigningKeyId !== "string") return reject("missing_current_signing_key_id", "a signed key-set card names its currentSigningKeyId");
    const entry = keys.signing.find((k: unknown) => isPlainObject(k) && k.keyId === keyId) as Record<string, unknown> | undefined;
    if (entry === undefined) return reject("signer_absent_from_signing", `cardSignature.keyId ${JSON.stringify(keyId)} names no entry of keys.signing`);
    // INK §10: a present `revokedAt` makes a key unusable whatever its status says.
    if (entry.status !== "active" || (hasOwn(entry, "revokedAt") && entry.revokedAt !== undefined)) {
      return reject("signer_not_active", `signing key ${JSON.stringify(keyId)} is not active`);
    }
    if (keyId !== card.currentSigningKeyId) return reject("signer_not_current", `cardSignature.keyId ${JSON.stringify(keyId)} is not the currentSigningKeyId`);
    const publicKey = decodeEd25519PublicKey(entry.publicKeyMultibase);
    if (publicKey === null) return reject("invalid_key_encoding", `signing key ${JSON.stringify(keyId)} is not an Ed25519 key`);
    return { ok: true, keyId, publicKey };
  }
  if (keyId !== LEGACY_CARD_KEY_ID) return reject("legacy_bootstrap_mismatch", `a card without keys.signing is signed under keyId "${LEGACY_CARD_KEY_ID}"`);
  const publicKey = decodeEd25519PublicKey(card.publicKeyMultibase);
  if (publicKey === null) return reject("invalid_key_encoding", "publicKeyMultibase is not an Ed25519 key");
  return { ok: true, keyId, publicKey };
}

function verify(card: unknown, options: CardProofOptions): CardProofResult {
  if (!isPlainObject(card)) return reject("invalid_card", "card is not a JSON object");
  if (!hasOwn(card, "cardSignature") || card.cardSignature === undefined) return { ok: true, kind: "unsigned" };
  if (hasOwn(card, "keys") && card.keys !== undefined && !isPlainObject(card.keys)) return reject("invalid_card", "keys is not an object");
  if (hasOwn(card, "rotationChain") && card.rotationChain !== undefined && !Array.isArray(card.rotationChain)) {
    return reject("invalid_card", "rotationChain is not an array"); // never read as absent (vector malformed-rotation-chain-reject)
  }
  const signer = selectCardSigner(card);
  if (!signer.ok) return signer;
  const signature = decodeSignature((card.cardSignature as Record<string, unknown>).signature);
  if (signature === null) return reject("invalid_card", "cardSignature.signature is not an 86-char base64url Ed25519 signature");
  const input = agentCardSigningInput(card);
  if (!input.ok) return reject("invalid_card", `card is not canonicalizable under INK's JCS profile (${input.reason})`);
  const verifier = options.verifier ?? nobleStrictVerifier;
  if (!verifier(signer.publicKey, utf8(input.text), signature)) return reject("invalid_signature", "cardSignature does not verify under the signing key");
  // INK §11: keySetVersion is a positive integer, required on a signed card (rollback compares it).
  const version = card.keySetVersion;
  if (typeof version !== "number" || !Number.isSafeInteger(version) || version < 1) {
    return reject("missing_key_set_version", "a signed card must carry a positive integer keySetVersion");
  }
  const signed = (anchor: CardAnchor): CardProofResult => ({ ok: true, kind: "signed", keyId: signer.keyId, publicKey: signer.publicKey, keySetVersion: version, anchor });
  const agentId = card.agentId;
  if (typeof agentId === "string" && KEY_DERIVED_PREFIXES.some((p) => agentId.startsWith(p))) {
    const genesis = agentIdPublicKey(agentId);
    if (genesis === null) return reject("unrooted_principal", "the agent id does not decode to a genesis key");
    if (!hasChain(card)) return equalBytes(genesis, signer.publicKey) ? signed("genesis") : reject("genesis_key_mismatch", "the signing key is not the genesis key and the card has no rotationChain");
    const chained = rootThroughChain(card, [genesis], version, verifier);
    return chained ?? signed("rotation-chain");
  }
  if (typeof agentId === "string" && agentId.startsWith("did:web:")) {
    const didKeys = options.didWebKeys;
    if (!Array.isArray(didKeys)) return signed("unanchored");
    const roots = didKeys.filter((k): k is Uint8Array => k instanceof Uint8Array);
    // A chain on a did:web card roots its link 1 in the DID document (vector didweb-with-chain-accept).
    if (hasChain(card)) return rootThroughChain(card, roots, version, verifier) ?? signed("did-web");
    if (!roots.some((k) => equalBytes(k, signer.publicKey))) return reject("didweb_signer_not_anchored", "the signing key is not a verification method of the did:web document");
    return signed("did-web");
  }
  // INK §13 defines trust roots for key-derived ids and did:web only (vector unrooted-principal-reject).
  return reject("unrooted_principal", "INK defines no trust root for this principal kind");
}

/**
 * Null when `rotationChain` roots at one of `roots` (link 1), walks to its head, and the head binds
 * this card: its version is `keySetVersion` and its set is `keys.signing` (so it holds the signer).
 */
function rootThroughChain(card: Record<string, unknown>, roots: readonly Uint8Array[], version: number, verifier: Ed25519Verifier): CardProofResult | null {
  const links = parseRotationChain(card.rotationChain);
  if (!Array.isArray(links)) return reject(links.reason, links.issue);
  const walked = walkLinks(links, () => (roots.length > 0 ? roots : "no root key to verify link 1"), verifier);
  if (walked !== null) return reject(walked.reason, walked.issue);
  const head = links[links.length - 1]!;
  if (head.keySetVersion !== version) return reject("head_version_mismatch", `chain head version ${head.keySetVersion} is not the card keySetVersion ${version}`);
  const set = cardSigningSet(card);
  if (set === null || !sameSigningSet(head.signing, set)) return reject("head_set_mismatch", "chain head signing set differs from keys.signing (keyId, key or status)");
  return null;
}

/** A present, non-empty `rotationChain` (an empty array says nothing and is read as absent). */
function hasChain(card: Record<string, unknown>): boolean {
  return hasOwn(card, "rotationChain") && card.rotationChain !== undefined && !(Array.isArray(card.rotationChain) && card.rotationChain.length === 0);
}

function reject(reason: CardProofFailure, issue: string): { ok: false; reason: CardProofFailure; issue: string } {
  return { ok: false, reason, issue };
}
