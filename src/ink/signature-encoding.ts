// Ed25519 signatures on the wire: 64 bytes → base64url without padding → exactly 86 chars (INK §1).
import { fromBase64url, toBase64url } from "./bytes.ts";

const SIGNATURE_B64U = /^[A-Za-z0-9_-]{86}$/;

/** True for an 86-char base64url string (the shape of every INK signature). */
export function isSignatureString(value: unknown): value is string {
  return typeof value === "string" && SIGNATURE_B64U.test(value);
}

/** 64 signature bytes of an 86-char base64url string, or null ([C20]: trailing bits tolerated). */
export function decodeSignature(value: unknown): Uint8Array | null {
  if (!isSignatureString(value)) return null;
  const bytes = fromBase64url(value);
  return bytes !== null && bytes.length === 64 ? bytes : null;
}

/** Canonical 86-char encoding of a 64-byte signature. */
export function encodeSignature(signature: Uint8Array): string {
  return toBase64url(signature);
}
