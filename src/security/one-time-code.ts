import { createHash, createHmac, randomBytes, randomInt } from "node:crypto";
import { secretsEqual } from "./secret-box.ts";

/**
 * Owner sign-in codes: 8 uniformly random digits (10^8: with 5 tries per code and the send limits,
 * guessing stays out of reach for years), stored only as an HMAC bound to the code's id and the
 * address, compared in constant time.
 */
export const CODE_DIGITS = 8;

export function generateCode(): string {
  let out = "";
  for (let i = 0; i < CODE_DIGITS; i++) out += String(randomInt(10));
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
