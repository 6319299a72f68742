// Scoped authorization grants (authorization profile, PROFILES.md): an issuer lets a subject act
// with `scope` toward one `audience`, for at most ten minutes, once. Strict object,
// `network.<wordmark|ink>.authorization_grant`, §7 body signature by the issuer. Verified from raw
// bytes against the issuer key and the verifier's context, signature first, then audience →
// subject → window → (issuer, grantId) replay → revocation → owner; recorded last.
import * as v from "valibot";
import { type Ed25519Verifier, nobleStrictVerifier } from "./ed25519.ts";
import {
  checkPresentation,
  fail,
  GRANT_MEMBERS,
  type GrantFailure,
  MAX_GRANT_LIFETIME_MS,
  type PresentationContext,
  readSigned,
  signedByActiveKey,
  signGrantShaped,
  windowProblem,
} from "./grant-kit.ts";
import type { SigningKeyEntry } from "./keys.ts";
import { check, strict } from "./schema-kit.ts";
import { isAcceptedMessageType, messageType, type Wordmark } from "./wordmark.ts";

export const AuthorizationGrant = strict({ protocol: v.literal("ink/0.1"), type: v.string(), ...GRANT_MEMBERS });
export type AuthorizationGrant = v.InferOutput<typeof AuthorizationGrant>;

export type GrantInput = PresentationContext & {
  /** Raw wire text or bytes (preferred: the raw-body gate applies), or a parsed object. */
  raw?: Uint8Array | string;
  grant?: unknown;
  /** The issuer's published signing keys; only `active` ones inside their window at `now` count. */
  issuerKeys: readonly SigningKeyEntry[];
  /** A caller-tightened lifetime ceiling in ms (0 or absent: the ten-minute one; negative: `schema`). */
  maxLifetimeMs?: number;
  wordmark: Wordmark;
  verifier?: Ed25519Verifier;
};

export type GrantResult = { ok: true; grant: AuthorizationGrant } | GrantFailure;

/** Verify and consume a grant (INK's order; the replay store records it only on success). */
export function verifyAuthorizationGrant(input: GrantInput): GrantResult {
  if (!Number.isFinite(input.now)) return fail("schema", "verifier clock");
  const ceiling = lifetimeCeiling(input.maxLifetimeMs);
  if (ceiling === null) return fail("schema", "maxLifetimeMs must be a non-negative integer");
  const read = readSigned({ raw: input.raw, value: input.grant });
  if (!read.ok) return read;
  const shape = check(AuthorizationGrant, read.value);
  if (!shape.ok) return fail("schema", shape.issue);
  const g = read.value as AuthorizationGrant;
  if (!isAcceptedMessageType(g.type, "authorization_grant", input.wordmark)) return fail("schema", "type");
  const window = windowProblem(g, ceiling);
  if (window !== null) return fail("schema", window);
  if (!signedByActiveKey(g, input.issuerKeys, input.now, input.wordmark, input.verifier ?? nobleStrictVerifier)) return fail("signature", "not signed by an active key of the issuer");
  const presented = checkPresentation([g], input);
  if (presented !== null) return presented;
  return { ok: true, grant: g };
}

/** What an issuer does: build and sign a grant (`network.<wordmark>.authorization_grant` unless neutral). */
export function signAuthorizationGrant(
  draft: Omit<AuthorizationGrant, "protocol" | "type" | "signature">,
  secretKey: Uint8Array,
  wordmark: Wordmark,
  options: { neutralType?: boolean } = {},
): { ok: true; grant: AuthorizationGrant } | GrantFailure {
  const type = options.neutralType === true ? "network.ink.authorization_grant" : messageType("authorization_grant", wordmark);
  const r = signGrantShaped<AuthorizationGrant>({ protocol: "ink/0.1", type, ...draft }, AuthorizationGrant, MAX_GRANT_LIFETIME_MS, secretKey, wordmark);
  return r.ok ? { ok: true, grant: r.value } : r;
}

/** The effective ceiling: the profile's ten minutes, or a tighter caller value; null if invalid. */
function lifetimeCeiling(max: number | undefined): number | null {
  if (max === undefined || max === 0) return MAX_GRANT_LIFETIME_MS;
  if (!Number.isSafeInteger(max) || max < 0) return null;
  return Math.min(max, MAX_GRANT_LIFETIME_MS);
}
