// Body signature (`signature` member, INK §7, frozen): Ed25519 over
//   <domain> JCS(object without "signature")
// where the domain is picked from the signed `protocol` alone and never retried with the other.
import { isPlainObject, utf8 } from "./bytes.ts";
import { type Ed25519Signer, type Ed25519Verifier, ed25519Sign, nobleStrictVerifier } from "./ed25519.ts";
import { canonicalize } from "./jcs.ts";
import { decodeSignature, encodeSignature } from "./signature-encoding.ts";
import type { Wordmark } from "./wordmark.ts";

/**
 * INK §7: exactly `"ink/0.2"` signs under `ink/sign\n`; anything else (ink/0.1, absent, unknown)
 * under the wordmark's legacy domain `<wordmark>/sign\n` (`tulpa/sign\n` in reference INK).
 */
export function bodySignatureDomain(protocol: unknown, wordmark: Wordmark): string {
  return protocol === "ink/0.2" ? "ink/sign\n" : `${wordmark}/sign\n`;
}

/** The signed text: domain + JCS(body minus `signature`); null if the body is not signable. */
export function bodySigningText(body: unknown, wordmark: Wordmark): string | null {
  if (!isPlainObject(body)) return null;
  const { signature: _omit, ...rest } = body;
  const jcs = canonicalize(rest);
  return jcs.ok ? bodySignatureDomain(body.protocol, wordmark) + jcs.text : null;
}

export type SignBodyResult =
  | { ok: true; body: Record<string, unknown>; signature: string }
  | { ok: false; reason: "unsignable_body" };

/**
 * Sign an object: returns a copy with `signature` set (any old one replaced). Refuses what a
 * receiver would reject: non-objects, unsafe numbers, lone surrogates, escaped member names.
 * `sign` is the Ed25519 backend (noble by default; deterministic, so any backend gives the same bytes).
 */
export function signBody(body: unknown, secretKey: Uint8Array, wordmark: Wordmark, sign: Ed25519Signer = ed25519Sign): SignBodyResult {
  const text = bodySigningText(body, wordmark);
  if (text === null) return { ok: false, reason: "unsignable_body" };
  const signature = encodeSignature(sign(utf8(text), secretKey));
  return { ok: true, body: { ...(body as Record<string, unknown>), signature }, signature };
}

/** Verify an object's `signature` member under the domain its `protocol` selects. Fails closed. */
export function verifyBody(
  body: unknown,
  publicKey: Uint8Array,
  wordmark: Wordmark,
  verifier: Ed25519Verifier = nobleStrictVerifier,
): boolean {
  if (!isPlainObject(body)) return false;
  const sig = decodeSignature(body.signature);
  if (sig === null) return false;
  const text = bodySigningText(body, wordmark);
  return text !== null && verifier(publicKey, utf8(text), sig);
}
