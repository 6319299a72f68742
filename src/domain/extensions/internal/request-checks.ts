import type { Db } from "../../../db/client.ts";
import { nonceSeen } from "../../../db/nonce-index.ts";
import { utf8 } from "../../../ink/bytes.ts";
import { checkFreshness, decodeEd25519PublicKey, decodeSignature, parseTimestamp, type Ed25519Verifier } from "../../../ink/index.ts";
import { extensionSigningString, isExtensionNonce } from "../../../security/extension-request.ts";
import type { VerifyCall } from "../../../security/preverify.ts";
import { nonceScope, unauthorized } from "./ext-refusal.ts";
import type { InstallationKey } from "./installation-row.ts";

/** What a signed extension request carries besides its token (SPEC Authentication §2). */
export interface SignedRequest {
  nonce: string | null;
  timestamp: string | null;
  signature: string | null;
  method: string;
  /** The raw request target: path and `?query` exactly as sent. */
  target: string;
  body: Uint8Array;
}

/**
 * SPEC checks 5–7, shared by every request and by token renewal: the timestamp in INK's window
 * (at most 300 s old, at most 30 s ahead, strict RFC 3339), the nonce well formed and unused by
 * this installation, the signature under one of `keys`. Returns the nonce and the key that signed.
 * Nothing is written: the nonce is recorded with the request's own write.
 */
export function checkSignedRequest(db: Db, installationId: string, input: SignedRequest, keys: InstallationKey[], now: number, verify: Ed25519Verifier): { nonce: string; key: InstallationKey } {
  const checked = checkUnsignedParts(db, installationId, input, keys, now);
  return { nonce: checked.nonce, key: signingKey(checked, (c) => verify(c.publicKey, c.message, c.signature)) };
}

/** What checks 5 and 6 let through: the nonce, and check 7's verifications (one per candidate key, in the keys' order). */
export interface UnsignedPartsChecked {
  nonce: string;
  keys: InstallationKey[];
  calls: VerifyCall[];
}

/**
 * Checks 5 and 6, and check 7 up to its verifications: the signature header present, the string
 * it must sign. The verifications are the caller's to run, in place or batched on a worker
 * (extension-auth.ts), before `signingKey`; a request failing 5 or 6 never reaches them.
 */
export function checkUnsignedParts(db: Db, installationId: string, input: SignedRequest, keys: InstallationKey[], now: number): UnsignedPartsChecked {
  const at = parseTimestamp(input.timestamp);
  if (at === null) throw unauthorized("timestamp_out_of_window", input.timestamp === null ? "X-Request-Timestamp is required" : "X-Request-Timestamp: not a strict RFC 3339 timestamp");
  if (checkFreshness(at, now) !== "fresh") throw unauthorized("timestamp_out_of_window", "X-Request-Timestamp is more than 300 s old or more than 30 s ahead");
  const nonce = input.nonce;
  if (nonce === null || !isExtensionNonce(nonce)) throw unauthorized("nonce_replayed", "X-Request-Nonce: 16 to 128 characters of [A-Za-z0-9_-] (a UUID) is required");
  if (nonceSeen(db, nonceScope(installationId), nonce)) throw unauthorized("nonce_replayed", "this nonce was already used");
  if (input.signature === null) throw unauthorized("signature_invalid", "X-Extension-Signature is required");
  // An undecodable signature verifies under no key: no call, and check 7 refuses below.
  const signature = decodeSignature(input.signature);
  if (signature === null) return { nonce, keys: [], calls: [] };
  const message = utf8(extensionSigningString(input.method, input.target, nonce, input.timestamp!, input.body));
  return { nonce, keys, calls: keys.map((k) => ({ publicKey: publicKeyOf(k), message, signature })) };
}

// A key's bytes, decoded once per key object: the installation's keys are parsed once per cache
// generation (request-cache.ts), so a request does not decode base58 again. The bytes are only read.
const decoded = new WeakMap<InstallationKey, Uint8Array>();
function publicKeyOf(key: InstallationKey): Uint8Array {
  let bytes = decoded.get(key);
  if (bytes === undefined) decoded.set(key, (bytes = decodeEd25519PublicKey(key.publicKeyMultibase)!));
  return bytes;
}

/** Check 7's outcome: the first key whose verification passed (`verdict`, asked in order until one does). */
export function signingKey(checked: UnsignedPartsChecked, verdict: (call: VerifyCall, i: number) => boolean): InstallationKey {
  const i = checked.calls.findIndex(verdict);
  if (i < 0) throw unauthorized("signature_invalid", "X-Extension-Signature does not verify under the extension's key");
  return checked.keys[i]!;
}
