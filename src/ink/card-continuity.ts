// Card ratchet and continuity (INK §13): once an authenticated (signed, verified) card of a
// principal is cached, a new card of that principal must be signed, must not lower
// `keySetVersion`, and its signer must be reachable from the cached card's non-revoked signing
// set. `updatedAt` has no comparison rule. Both cards are assumed to have passed
// `verifyAgentCardProof`; this check adds only what the cached card knows.
import { hasOwn, isPlainObject } from "./bytes.ts";
import { selectCardSigner, LEGACY_CARD_KEY_ID } from "./card-signature.ts";
import { type Ed25519Verifier, nobleStrictVerifier } from "./ed25519.ts";
import { decodeEd25519PublicKey } from "./multibase.ts";
import { cardSigningSet, equalBytes, parseRotationChain, sameSigningSet, walkLinks } from "./rotation-chain.ts";

/** INK's reason codes for a card that breaks continuity with the cached authenticated one. */
export type ContinuityFailure = "unsigned_after_authenticated" | "continuity_version_regression" | "continuity_unreachable_key";

export type ContinuityResult = { ok: true } | { ok: false; reason: ContinuityFailure; issue: string };

/**
 * Decide whether `incoming` may replace `cached` for one principal. A cached card without a
 * `cardSignature` sets no ratchet. Otherwise: an unsigned incoming card rejects forever after; a
 * lower `keySetVersion` is a rollback; the incoming signer must be a non-revoked signing key of the
 * cached card, or be reached through the incoming `rotationChain` links above the cached version
 * (the first of them signed by a non-revoked key of the cached card, named by `prevKeyId`, each
 * next one by a key active in the link before, versions +1 up to the incoming card's, the last
 * link's set equal to the incoming `keys.signing`). Never throws.
 */
export function checkCardContinuity(cached: unknown, incoming: unknown, options: { verifier?: Ed25519Verifier } = {}): ContinuityResult {
  return isSignedCard(cached) ? checkContinuityFromAuthenticated(cached, incoming, options.verifier) : { ok: true };
}

/**
 * The same rules for a cached card the caller knows was authenticated, whether or not it still
 * carries its `cardSignature` (a cache may store cards without it; the vectors pass them so).
 */
export function checkContinuityFromAuthenticated(cached: unknown, incoming: unknown, verifier: Ed25519Verifier = nobleStrictVerifier): ContinuityResult {
  try {
    return check(cached, incoming, verifier);
  } catch {
    return fail("continuity_unreachable_key", "continuity could not be checked");
  }
}

/** True when a card carries a `cardSignature` member (an authenticated card, once verified). */
export function isSignedCard(card: unknown): boolean {
  return isPlainObject(card) && hasOwn(card, "cardSignature") && card.cardSignature !== undefined;
}

function check(cached: unknown, incoming: unknown, verifier: Ed25519Verifier): ContinuityResult {
  if (!isPlainObject(cached)) return fail("continuity_unreachable_key", "the cached card is not a JSON object");
  const old = cached;
  if (!isSignedCard(incoming)) return fail("unsigned_after_authenticated", "the cached card is signed; an unsigned card of this principal is refused");
  const next = incoming as Record<string, unknown>;
  const oldVersion = versionOf(old);
  const newVersion = versionOf(next);
  if (newVersion < oldVersion) return fail("continuity_version_regression", `keySetVersion ${newVersion} is lower than the cached ${oldVersion}`);
  const signer = selectCardSigner(next);
  if (!signer.ok) return fail("continuity_unreachable_key", signer.issue);
  const trusted = nonRevokedKeys(old);
  if (trusted.some((k) => equalBytes(k.publicKey, signer.publicKey))) return { ok: true };
  if (newVersion === oldVersion) return fail("continuity_unreachable_key", "the signing key is not in the cached card's non-revoked signing set");
  return reachThroughChain(next, oldVersion, newVersion, trusted, verifier);
}

/** The incoming chain's links above the cached version, walked from the cached non-revoked set. */
function reachThroughChain(
  card: Record<string, unknown>,
  oldVersion: number,
  newVersion: number,
  trusted: ReadonlyArray<{ keyId: string; publicKey: Uint8Array }>,
  verifier: Ed25519Verifier,
): ContinuityResult {
  const unreachable = (why: string) => fail("continuity_unreachable_key", `the signing key is not reachable from the cached card: ${why}`);
  if (!hasOwn(card, "rotationChain") || !Array.isArray(card.rotationChain)) return unreachable("no rotationChain");
  const links = parseRotationChain(card.rotationChain);
  if (!Array.isArray(links)) return unreachable(links.issue);
  const above = links.filter((l) => l.keySetVersion > oldVersion);
  if (above.length === 0 || above[0]!.keySetVersion !== oldVersion + 1) return unreachable(`the chain has no link at version ${oldVersion + 1}`);
  const first = (link: { prevKeyId: unknown }) => {
    const key = trusted.find((k) => k.keyId === link.prevKeyId)?.publicKey;
    return key === undefined ? `prevKeyId ${JSON.stringify(link.prevKeyId)} is not a non-revoked key of the cached card` : [key];
  };
  const walked = walkLinks(above, first, verifier, (i) => `link at version ${oldVersion + 1 + i}`);
  if (walked !== null) return unreachable(walked.issue);
  const head = above[above.length - 1]!;
  const set = cardSigningSet(card);
  if (head.keySetVersion !== newVersion || set === null || !sameSigningSet(head.signing, set)) return unreachable("the chain head does not bind the card's signing set");
  return { ok: true };
}

/** A cached card's signing keys that are not revoked; a legacy card's single `bootstrap` key. */
function nonRevokedKeys(card: Record<string, unknown>): Array<{ keyId: string; publicKey: Uint8Array }> {
  const keys = card.keys;
  if (isPlainObject(keys) && Array.isArray(keys.signing)) {
    const out: Array<{ keyId: string; publicKey: Uint8Array }> = [];
    for (const k of keys.signing) {
      if (!isPlainObject(k) || k.status === "revoked" || (hasOwn(k, "revokedAt") && k.revokedAt !== undefined)) continue;
      const publicKey = decodeEd25519PublicKey(k.publicKeyMultibase);
      if (publicKey !== null && typeof k.keyId === "string") out.push({ keyId: k.keyId, publicKey });
    }
    return out;
  }
  const legacy = decodeEd25519PublicKey(card.publicKeyMultibase);
  return legacy === null ? [] : [{ keyId: LEGACY_CARD_KEY_ID, publicKey: legacy }];
}

/** A signed card's keySetVersion; a missing one counts below every real version. */
function versionOf(card: Record<string, unknown>): number {
  const v = card.keySetVersion;
  return typeof v === "number" && Number.isSafeInteger(v) && v >= 1 ? v : 0;
}

function fail(reason: ContinuityFailure, issue: string): ContinuityResult {
  return { ok: false, reason, issue };
}
