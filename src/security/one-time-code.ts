import { createHash, createHmac, randomBytes, randomInt } from "node:crypto";
import { secretsEqual } from "./secret-box.ts";

/**
 * Owner sign-in codes: uniformly random digits, stored only as an HMAC bound to the code's id and
 * the address, compared in constant time. Mailed codes have 8 digits (their try budgets and the
 * send limits bound guessing); `kith owner code` prints 12, because its code has no try cap a
 * stranger could spend (docs/decisions/owner-sign-in.md has the arithmetic).
 */
export const EMAIL_CODE_DIGITS = 8;
export const CLI_CODE_DIGITS = 12;

export function generateCode(digits: number): string {
  let out = "";
  for (let i = 0; i < digits; i++) out += String(randomInt(10));
  return out;
}

/** What a person may type: the digits, with spaces or hyphens between groups. */
export function normalizeCode(input: string): string {
  return input.replace(/[\s-]/g, "");
}

export function hashCode(key: Uint8Array, codeId: string, email: string, code: string): string {
  return createHmac("sha256", key).update(`kith-code/1\n${codeId}\n${email}\n${code}`).digest("base64url");
}

export function codeMatches(key: Uint8Array, codeId: string, email: string, candidate: string, storedHash: string): boolean {
  return secretsEqual(hashCode(key, codeId, email, candidate), storedHash);
}

/** Opaque high-entropy tokens (refresh tokens) and their at-rest form. */
export function newOpaqueToken(prefix: string): string {
  return `${prefix}${randomBytes(32).toString("base64url")}`;
}

/**
 * The token that replaces `token` on rotation: HMAC of it under a node-secret key, so presenting
 * the same spent token again yields the same successor without keeping any token in clear.
 */
export function successorToken(key: Uint8Array, prefix: string, token: string): string {
  return `${prefix}${createHmac("sha256", key).update(`kith-refresh/1\n${token}`).digest("base64url")}`;
}

export function sha256Base64url(value: string): string {
  return createHash("sha256").update(value).digest("base64url");
}
