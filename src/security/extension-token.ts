// The extension delegation token (SPEC "Delegation token payload"; docs/decisions/extensions.md):
//   token = base64url(JCS(payload)) "." base64url(Ed25519(DOMAIN + JCS(payload)))
// signed by the agent's active signing key. What it shares with INK: JCS (INK §4.1), base64url
// without padding, a domain-separated Ed25519 signature of 86 characters, strict RFC 3339 times.
import { decodeUtf8, fromBase64url, isPlainObject, toBase64url, utf8 } from "../ink/bytes.ts";
import { sha256Hex } from "./native-hash.ts";
import { canonicalize, decodeEd25519PublicKey, decodeSignature, ed25519Sign, encodeSignature, parseTimestamp, type Ed25519Verifier } from "../ink/index.ts";

/** Signature domain: the agent key signs INK bodies too, so a token can never pass for one. */
export const TOKEN_DOMAIN = "kith/delegation-token/1\n";
export const TOKEN_VERSION = 1;
/** Longest lifetime of a token (PRODUCT-SURFACE: hours, capped at 24 h). */
export const MAX_TOKEN_TTL_MS = 24 * 3600_000;
export const MAX_TOKEN_CHARS = 8192;

export const AUTONOMY_TIERS = ["transactional", "social", "personal"] as const;
export type AutonomyTier = (typeof AUTONOMY_TIERS)[number];

/** SPEC's payload, plus the extension's key and a version. Field names as in SPEC (`ownerTulpaId` whatever the wordmark). */
export interface DelegationPayload {
  tokenVersion: number;
  installationId: string;
  extensionId: string;
  ownerTulpaId: string;
  publicKeyMultibase: string;
  permissions: string[];
  layers: string[];
  maxAutonomyTier: AutonomyTier;
  issuedAt: string;
  expiresAt: string;
}

/** Signs a payload into a token (throws on a payload JCS refuses: a programming error). */
export function signDelegationToken(payload: DelegationPayload, secretKey: Uint8Array): string {
  const jcs = canonicalize(payload);
  if (!jcs.ok) throw new TypeError(`delegation payload: ${jcs.reason}`);
  return `${toBase64url(utf8(jcs.text))}.${encodeSignature(ed25519Sign(utf8(TOKEN_DOMAIN + jcs.text), secretKey))}`;
}

/** Lowercase hex SHA-256 of the token's characters: what an installation stores (SPEC check 3). */
export function delegationTokenHash(token: string): string {
  return sha256Hex(token);
}

export type TokenCheck = { ok: true; payload: DelegationPayload } | { ok: false; problem: string };

/**
 * SPEC check 1: the token is `<payload>.<signature>`, the payload is canonical JCS of a
 * well-formed payload, and the signature verifies under one of `keys` (the agent's *active*
 * signing keys: a rotation invalidates every older token). Expiry is check 2, not this one.
 */
export function verifyDelegationToken(token: string, keys: readonly Uint8Array[], verify: Ed25519Verifier): TokenCheck {
  if (token.length > MAX_TOKEN_CHARS) return { ok: false, problem: "the token is too long" };
  const m = /^([A-Za-z0-9_-]+)\.([A-Za-z0-9_-]{86})$/.exec(token);
  const bytes = m ? fromBase64url(m[1]!) : null;
  const signature = m ? decodeSignature(m[2]) : null;
  const text = bytes ? decodeUtf8(bytes) : null;
  if (!m || text === null || signature === null) return { ok: false, problem: "the token is not <base64url payload>.<base64url signature>" };
  const message = utf8(TOKEN_DOMAIN + text);
  if (!keys.some((k) => verify(k, message, signature))) return { ok: false, problem: "the token's signature does not verify under the agent's active key" };
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { ok: false, problem: "the token payload is not JSON" };
  }
  const payload = payloadOf(value);
  if (!payload) return { ok: false, problem: "the token payload is malformed" };
  const jcs = canonicalize(payload);
  if (!jcs.ok || jcs.text !== text) return { ok: false, problem: "the token payload is not canonical JCS" };
  return { ok: true, payload };
}

function payloadOf(value: unknown): DelegationPayload | null {
  if (!isPlainObject(value)) return null;
  const p = value as Record<string, unknown>;
  const strings = ["installationId", "extensionId", "ownerTulpaId", "publicKeyMultibase", "issuedAt", "expiresAt"];
  if (!strings.every((k) => typeof p[k] === "string")) return null;
  if (p.tokenVersion !== TOKEN_VERSION || !isStringArray(p.permissions) || !isStringArray(p.layers)) return null;
  if (!AUTONOMY_TIERS.includes(p.maxAutonomyTier as AutonomyTier)) return null;
  if (parseTimestamp(p.issuedAt) === null || parseTimestamp(p.expiresAt) === null) return null;
  if (decodeEd25519PublicKey(p.publicKeyMultibase) === null) return null;
  if (Object.keys(p).length !== 10) return null;
  return p as unknown as DelegationPayload;
}

function isStringArray(v: unknown): v is string[] {
  return Array.isArray(v) && v.length <= 64 && v.every((s) => typeof s === "string" && s.length <= 128);
}

/** Tiers are ordered transactional < social < personal: the rank compares them. */
export function tierRank(tier: AutonomyTier): number {
  return AUTONOMY_TIERS.indexOf(tier);
}
