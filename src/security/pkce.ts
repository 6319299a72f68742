import { createHash, randomBytes } from "node:crypto";
import { secretsEqual } from "./secret-box.ts";

/** RFC 7636 §4.1: 43-128 characters of [A-Z a-z 0-9 - . _ ~]. */
export const CODE_VERIFIER_PATTERN = /^[A-Za-z0-9\-._~]{43,128}$/;
/** An S256 challenge is BASE64URL(SHA-256(verifier)) without padding: 43 characters. */
export const CODE_CHALLENGE_PATTERN = /^[A-Za-z0-9_-]{43}$/;

export function newCodeVerifier(): string {
  return randomBytes(32).toString("base64url");
}

export function s256Challenge(verifier: string): string {
  return createHash("sha256").update(verifier).digest("base64url");
}

/** RFC 7636 §4.6, constant time. */
export function verifierMatches(verifier: string, challenge: string): boolean {
  if (!CODE_VERIFIER_PATTERN.test(verifier)) return false;
  return secretsEqual(s256Challenge(verifier), challenge);
}

export function randomToken(bytes = 24): string {
  return randomBytes(bytes).toString("base64url");
}
