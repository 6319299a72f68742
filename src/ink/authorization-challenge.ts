// "Sign in with INK" challenges (authorization profile, PROFILES.md): a relying party, named by a
// bare-host did:web, asks an agent for registry scopes and says where to send the answer. Strict
// object, `network.ink.authorization_challenge` only (neutral spelling), §7 body signature by an
// active RP key at the verifier clock, window [issuedAt, expiresAt) of at most ten minutes. The
// grant answering it carries the id derived from the challenge (`deriveChallengeGrantId`).
import { sha256 } from "@noble/hashes/sha2.js";
import * as v from "valibot";
import { isPlainObject, toBase64url, utf8 } from "./bytes.ts";
import { type Ed25519Verifier, nobleStrictVerifier } from "./ed25519.ts";
import { fail, type GrantFailure, Instant, MAX_GRANT_LIFETIME_MS, readSigned, ScopeList, Signature, signedByActiveKey, signGrantShaped, windowProblem } from "./grant-kit.ts";
import { canonicalize } from "./jcs.ts";
import type { SigningKeyEntry } from "./keys.ts";
import { check, strict } from "./schema-kit.ts";
import { parseTimestamp } from "./timestamp.ts";
import type { Wordmark } from "./wordmark.ts";

/** The sign-in scope registry (INK agent authorization); unknown tokens are refused, not ignored. */
export const SIGN_IN_SCOPES = ["identity.assert", "profile.read", "agent.message.send"] as const;
const CHALLENGE_ID_DOMAIN = "ink/challenge-id\n";

export const AuthorizationChallenge = strict({
  protocol: v.literal("ink/0.1"),
  type: v.literal("network.ink.authorization_challenge"),
  rp: v.pipe(v.string(), v.maxLength(512), v.check((s) => rpOrigin(s) !== null, "rp: a bare-host did:web")),
  nonce: v.pipe(v.string(), v.minLength(16), v.maxLength(256)),
  requestedScope: v.pipe(
    ScopeList,
    v.check((s) => s.every((t) => (SIGN_IN_SCOPES as readonly string[]).includes(t)), "requestedScope: registry tokens only"),
    v.check((s) => s.includes("identity.assert"), "requestedScope must include identity.assert"),
  ),
  redirectUri: v.pipe(v.string(), v.maxLength(2048)),
  issuedAt: Instant,
  expiresAt: Instant,
  signature: Signature,
});
export type AuthorizationChallenge = v.InferOutput<typeof AuthorizationChallenge>;

export type ChallengeInput = {
  /** Raw wire text or bytes (preferred: the raw-body gate applies), or a parsed object. */
  raw?: Uint8Array | string;
  challenge?: unknown;
  /** The RP's published signing keys; only `active` ones inside their window at `now` count. */
  rpKeys: readonly SigningKeyEntry[];
  /** Verifier clock, epoch ms (non-finite: `schema`). */
  now: number;
  wordmark: Wordmark;
  verifier?: Ed25519Verifier;
};

export type ChallengeResult = { ok: true; challenge: AuthorizationChallenge; grantId: string; origin: string } | GrantFailure;

/**
 * Verify a challenge: clock and schema (incl. the redirect rule: `redirectUri` starts with the
 * rp's origin + "/" as literal text, with no fragment, backslash, control or space) → signature
 * → window. Signature before window: a tampered challenge fails as `signature` even when expired.
 */
export function verifyAuthorizationChallenge(input: ChallengeInput): ChallengeResult {
  if (!Number.isFinite(input.now)) return fail("schema", "verifier clock");
  const read = readSigned({ raw: input.raw, value: input.challenge });
  if (!read.ok) return read;
  const shape = check(AuthorizationChallenge, read.value);
  if (!shape.ok) return fail("schema", shape.issue);
  const c = read.value as AuthorizationChallenge;
  const origin = rpOrigin(c.rp) as string;
  if (!isRedirectOnOrigin(c.redirectUri, origin)) return fail("schema", "redirectUri must be on the rp origin");
  const window = windowProblem(c, MAX_GRANT_LIFETIME_MS);
  if (window !== null) return fail("schema", window);
  if (!signedByActiveKey(c, input.rpKeys, input.now, input.wordmark, input.verifier ?? nobleStrictVerifier)) return fail("signature", "not signed by an active key of the rp");
  if (input.now < (parseTimestamp(c.issuedAt) as number)) return fail("not_yet_valid", "before issuedAt");
  if (input.now >= (parseTimestamp(c.expiresAt) as number)) return fail("expired", "at or after expiresAt");
  return { ok: true, challenge: c, grantId: deriveChallengeGrantId(c) as string, origin };
}

/**
 * The grant id a challenge binds: base64url(SHA-256(`ink/challenge-id\n` + JCS({rp, nonce,
 * issuedAt, expiresAt}))), 43 characters. The other members (scope, redirect) do not change it.
 */
export function deriveChallengeGrantId(challenge: unknown): string | null {
  if (!isPlainObject(challenge)) return null;
  const { rp, nonce, issuedAt, expiresAt } = challenge;
  if (![rp, nonce, issuedAt, expiresAt].every((x) => typeof x === "string")) return null;
  const jcs = canonicalize({ rp, nonce, issuedAt, expiresAt });
  return jcs.ok ? toBase64url(sha256(utf8(CHALLENGE_ID_DOMAIN + jcs.text))) : null;
}

/** What an RP does (tests, and a future sign-in surface): build and sign a challenge. */
export function signAuthorizationChallenge(
  draft: Omit<AuthorizationChallenge, "protocol" | "type" | "signature">,
  secretKey: Uint8Array,
  wordmark: Wordmark,
): { ok: true; challenge: AuthorizationChallenge } | GrantFailure {
  const r = signGrantShaped<AuthorizationChallenge>({ protocol: "ink/0.1", type: "network.ink.authorization_challenge", ...draft }, AuthorizationChallenge, MAX_GRANT_LIFETIME_MS, secretKey, wordmark);
  if (!r.ok) return r;
  const origin = rpOrigin(draft.rp) as string; // the schema checked it
  return isRedirectOnOrigin(draft.redirectUri, origin) ? { ok: true, challenge: r.value } : fail("schema", "redirectUri must be on the rp origin");
}

const LABEL = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;

/**
 * The https origin of a bare-host did:web (`did:web:host` or `did:web:host%3Aport`): lowercase DNS
 * labels (at least two, the last not all digits, so no IP literal), no path segment, no trailing
 * dot, no other percent escape; a port is `%3A` (upper case) + 1..65535 without a leading zero,
 * and not 443 (the default is spelled by omitting it). Null when `did` is not one.
 */
export function rpOrigin(did: string): string | null {
  const m = /^did:web:([^%:]+)(?:%3A([1-9][0-9]{0,4}))?$/.exec(did);
  if (!m) return null;
  const host = m[1] as string;
  const labels = host.split(".");
  if (host.length > 253 || labels.length < 2 || !labels.every((l) => LABEL.test(l)) || /^[0-9]+$/.test(labels[labels.length - 1] as string)) return null;
  const port = m[2] === undefined ? null : Number(m[2]);
  if (port !== null && (port > 65_535 || port === 443)) return null;
  return `https://${host}${port === null ? "" : `:${port}`}`;
}

/** The literal, parser-independent redirect rule: origin + "/" prefix; no `#`, `\`, control or space. */
function isRedirectOnOrigin(uri: string, origin: string): boolean {
  if (!uri.startsWith(`${origin}/`)) return false;
  for (let i = 0; i < uri.length; i++) {
    const c = uri.charCodeAt(i);
    if (c <= 0x20 || c === 0x7f || c === 0x23 || c === 0x5c) return false;
  }
  return true;
}
