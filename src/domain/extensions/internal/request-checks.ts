import type { Db } from "../../../db/client.ts";
import { ingestStatements } from "../../../db/ingest-statements.ts";
import { checkFreshness, decodeEd25519PublicKey, parseTimestamp, type Ed25519Verifier } from "../../../ink/index.ts";
import { extensionSigningString, isExtensionNonce, verifyExtensionSignature } from "../../../security/extension-request.ts";
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
  const at = parseTimestamp(input.timestamp);
  if (at === null) throw unauthorized("timestamp_out_of_window", input.timestamp === null ? "X-Request-Timestamp is required" : "X-Request-Timestamp: not a strict RFC 3339 timestamp");
  if (checkFreshness(at, now) !== "fresh") throw unauthorized("timestamp_out_of_window", "X-Request-Timestamp is more than 300 s old or more than 30 s ahead");
  const nonce = input.nonce;
  if (nonce === null || !isExtensionNonce(nonce)) throw unauthorized("nonce_replayed", "X-Request-Nonce: 16 to 128 characters of [A-Za-z0-9_-] (a UUID) is required");
  if (ingestStatements(db).nonceSeen.get(nonceScope(installationId), nonce) !== null) throw unauthorized("nonce_replayed", "this nonce was already used");
  const signature = input.signature;
  if (signature === null) throw unauthorized("signature_invalid", "X-Extension-Signature is required");
  const signing = extensionSigningString(input.method, input.target, nonce, input.timestamp!, input.body);
  const key = keys.find((k) => verifyExtensionSignature(signature, decodeEd25519PublicKey(k.publicKeyMultibase)!, signing, verify));
  if (!key) throw unauthorized("signature_invalid", "X-Extension-Signature does not verify under the extension's key");
  return { nonce, key };
}
