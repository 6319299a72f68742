// The extension request signature (SPEC Authentication §2; docs/extensions.md):
//   METHOD "\n" TARGET "\n" NONCE "\n" TIMESTAMP "\n" hex(sha256(body))
// TARGET is the raw request target as sent (path and `?query`), so query parameters are signed.
import { utf8 } from "../ink/bytes.ts";
import { sha256Hex } from "./native-hash.ts";
import { decodeSignature, type Ed25519Verifier } from "../ink/index.ts";

/** hex SHA-256 of the empty body (every GET). */
export const EMPTY_BODY_HASH = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";

/** `X-Request-Nonce`: UUID recommended (SPEC); any 16–128 characters of `[A-Za-z0-9_-]`. */
export function isExtensionNonce(value: string): boolean {
  return /^[A-Za-z0-9_-]{16,128}$/.test(value);
}

export function bodyHash(body: Uint8Array): string {
  return body.length === 0 ? EMPTY_BODY_HASH : sha256Hex(body);
}

/** The exact string an extension signs. */
export function extensionSigningString(method: string, target: string, nonce: string, timestamp: string, body: Uint8Array): string {
  return `${method}\n${target}\n${nonce}\n${timestamp}\n${bodyHash(body)}`;
}

/** SPEC check 7: `X-Extension-Signature` (base64url, 86 characters) verifies under `publicKey`. */
export function verifyExtensionSignature(signature: string, publicKey: Uint8Array, signingString: string, verify: Ed25519Verifier): boolean {
  const sig = decodeSignature(signature);
  return sig !== null && verify(publicKey, utf8(signingString), sig);
}
