// What INK's grant-shaped artifacts share (authorization profile: challenges and grants;
// delegation profile: chain links): the scope and id grammar, the signed validity window with its
// lifetime ceiling, active-key-only signatures at the verifier clock, and the presentation checks
// in INK's order — audience → subject → window → replay → revocation → owner, then record.
import * as v from "valibot";
import { isPlainObject, utf8 } from "./bytes.ts";
import { bodySigningText, signBody } from "./body-signature.ts";
import type { Ed25519Verifier } from "./ed25519.ts";
import { canonicalize } from "./jcs.ts";
import { isKeyUsableAt, type SigningKeyEntry } from "./keys.ts";
import { normalizePrincipal } from "./principal.ts";
import { DEFAULT_MAX_BODY_BYTES, parseRawBody } from "./raw-body.ts";
import type { NonceStore } from "./replay.ts";
import { check, text } from "./schema-kit.ts";
import { decodeSignature } from "./signature-encoding.ts";
import { parseTimestamp } from "./timestamp.ts";
import type { Wordmark } from "./wordmark.ts";

/** INK's reason codes for grants, challenges and chains (PROFILES.md, authorization/delegation). */
export type GrantReason =
  | "schema"
  | "chain"
  | "attenuation"
  | "signature"
  | "audience"
  | "subject"
  | "not_yet_valid"
  | "expired"
  | "replay"
  | "revoked"
  | "owner_unverified";

export type GrantFailure = { ok: false; reason: GrantReason; issue: string };

/** Ten minutes: a challenge, a grant, and the final link of a chain (INK authorization profile). */
export const MAX_GRANT_LIFETIME_MS = 10 * 60 * 1000;
/** Twenty-four hours: a non-final link of a delegation chain. */
export const MAX_LINK_LIFETIME_MS = 24 * 60 * 60 * 1000;
/** Raw grants, challenges and chains are read from at most 64 KiB (INK §4.2, [C9]). */
export const MAX_GRANT_BYTES = DEFAULT_MAX_BODY_BYTES;

/** 1..64 distinct scope tokens, each a string of 1..128 UTF-16 units (opaque, case-sensitive). */
export const ScopeList = v.pipe(
  v.array(text(128)),
  v.minLength(1),
  v.maxLength(64),
  v.check((s) => new Set(s).size === s.length, "scope entries must be distinct"),
);
/** A grant id: 16..256 characters. */
export const GrantId = v.pipe(v.string(), v.minLength(16), v.maxLength(256));
/** issuer / subject / audience: 1..512 characters (INK §2 principal cap). */
export const Principal = text(512);
export const Signature = v.pipe(v.string(), v.regex(/^[A-Za-z0-9_-]{86}$/));
export const Instant = v.pipe(v.string(), v.check((s) => parseTimestamp(s) !== null, "a strict INK timestamp"));

/** The members every grant-shaped artifact has besides `protocol` and `type` (grants, chain links). */
export const GRANT_MEMBERS = {
  issuer: Principal,
  subject: Principal,
  audience: Principal,
  scope: ScopeList,
  grantId: GrantId,
  issuedAt: Instant,
  expiresAt: Instant,
  requireVerifiedOwner: v.optional(v.boolean()),
  signature: Signature,
};

/**
 * Sign a grant-shaped object the way its verifier reads it (§7 body signature), refusing what that
 * verifier would refuse: the schema, and a window over `ceilingMs`.
 */
export function signGrantShaped<T>(unsigned: Record<string, unknown> & { issuedAt: string; expiresAt: string }, schema: v.GenericSchema, ceilingMs: number, secretKey: Uint8Array, wordmark: Wordmark): { ok: true; value: T } | GrantFailure {
  const signed = signBody(unsigned, secretKey, wordmark);
  if (!signed.ok) return fail("schema", signed.reason);
  const r = check(schema, signed.body);
  if (!r.ok) return fail("schema", r.issue);
  const window = windowProblem(unsigned, ceilingMs);
  return window === null ? { ok: true, value: signed.body as T } : fail("schema", window);
}

/**
 * The signed window [issuedAt, expiresAt): expiresAt strictly after issuedAt, and the lifetime at
 * most `ceilingMs`. Null when it holds (both are strict timestamps, checked by the schema first).
 */
export function windowProblem(g: { issuedAt: string; expiresAt: string }, ceilingMs: number): string | null {
  const from = parseTimestamp(g.issuedAt) as number;
  const until = parseTimestamp(g.expiresAt) as number;
  if (until <= from) return "expiresAt must be after issuedAt";
  if (until - from > ceilingMs) return `lifetime over ${ceilingMs / 60_000} minutes`;
  return null;
}

/** The wire object: parsed already, or raw text/bytes through the raw-body gate (64 KiB); JCS-safe. */
export function readSigned(input: { raw?: Uint8Array | string; value?: unknown }): { ok: true; value: Record<string, unknown> } | GrantFailure {
  let value = input.value;
  if (input.raw !== undefined) {
    const gate = parseRawBody(input.raw, MAX_GRANT_BYTES);
    if (!gate.ok) return { ok: false, reason: "schema", issue: gate.reason };
    value = gate.value;
  }
  if (!isPlainObject(value)) return { ok: false, reason: "schema", issue: "not a JSON object" };
  // A value JCS refuses (lone surrogate, unsafe number, too deep) has no signed bytes: a schema
  // failure, not a signature one, whichever way it arrived.
  const jcs = canonicalize(value);
  return jcs.ok ? { ok: true, value } : { ok: false, reason: "schema", issue: `not canonicalizable (${jcs.reason})` };
}

/**
 * Verify the §7 body signature (`<wordmark>/sign\n` for ink/0.1) under any key that is `active`
 * and inside its window at `now` (INK: retired and revoked keys never sign a grant). Fails closed.
 */
export function signedByActiveKey(body: Record<string, unknown>, keys: readonly SigningKeyEntry[], now: number, wordmark: Wordmark, verifier: Ed25519Verifier): boolean {
  const sig = decodeSignature(body.signature);
  const signed = bodySigningText(body, wordmark);
  if (sig === null || signed === null || !Array.isArray(keys)) return false;
  const message = utf8(signed);
  return keys.some((k) => k !== null && typeof k === "object" && k.status === "active" && isKeyUsableAt(k, now) && safeVerify(verifier, k.publicKey, message, sig));
}

/** Replay state keyed (canonical issuer, grantId): read first, recorded last (after every check). */
export interface GrantReplayStore extends NonceStore {
  has(scope: string, grantId: string): boolean;
}

export type PresentationContext = {
  /** The verifying service's own identifier; a grant names exactly it. */
  audience: string;
  /** Verifier clock, epoch ms (non-finite: `schema`). */
  now: number;
  /** The authenticated presenter; absent or empty means a bearer presentation (no binding). */
  presenter?: string | null;
  replay: GrantReplayStore;
  /** Revocation predicate keyed (canonical issuer, grantId). */
  isRevoked?: (issuerPrincipal: string, grantId: string) => boolean;
  /** Owner status the service established; only consulted when a grant requires it. */
  ownerVerified?: boolean;
};

type Presented = { issuer: string; subject: string; audience: string; grantId: string; issuedAt: string; expiresAt: string; requireVerifiedOwner?: boolean };

/**
 * INK's presentation checks over a verified grant or chain (`links` root first; the last one is
 * presented): every audience is the verifier's, the presenter is the last subject, `now` is inside
 * every window, the last (issuer, grantId) is unseen, none is revoked, a required owner is
 * verified; then the last pair is recorded. Null when accepted.
 */
export function checkPresentation(links: readonly Presented[], ctx: PresentationContext): GrantFailure | null {
  const last = links[links.length - 1] as Presented;
  if (!links.every((l) => l.audience === ctx.audience)) return fail("audience", "the grant names another audience");
  if (typeof ctx.presenter === "string" && ctx.presenter !== "" && ctx.presenter !== last.subject) return fail("subject", "the presenter is not the grant's subject");
  for (const l of links) {
    if (ctx.now < (parseTimestamp(l.issuedAt) as number)) return fail("not_yet_valid", `before issuedAt of ${l.grantId}`);
    if (ctx.now >= (parseTimestamp(l.expiresAt) as number)) return fail("expired", `at or after expiresAt of ${l.grantId}`);
  }
  const scopes = links.map((l) => normalizePrincipal(l.issuer));
  if (!scopes.every((p) => p.ok)) return fail("schema", "issuer is not a principal");
  const scopeOf = (i: number) => (scopes[i] as { principal: string }).principal;
  const lastScope = scopeOf(links.length - 1);
  // Stores and predicates are the caller's; one that throws fails closed under its own reason.
  if (attempt(() => ctx.replay.has(lastScope, last.grantId)) !== false) return fail("replay", "this grant was already presented");
  if (links.some((l, i) => attempt(() => ctx.isRevoked?.(scopeOf(i), l.grantId) ?? false) !== false)) return fail("revoked", "the grant is revoked");
  if (links.some((l) => l.requireVerifiedOwner === true) && ctx.ownerVerified !== true) return fail("owner_unverified", "the grant requires a verified owner");
  if (attempt(() => ctx.replay.addIfAbsent(lastScope, last.grantId)) !== true) return fail("replay", "this grant was presented concurrently");
  return null;
}

export function fail(reason: GrantReason, issue: string): GrantFailure {
  return { ok: false, reason, issue };
}

/** The value of `f`, or "error" when it throws. */
function attempt<T>(f: () => T): T | "error" {
  try {
    return f();
  } catch {
    return "error";
  }
}

function safeVerify(verifier: Ed25519Verifier, publicKey: Uint8Array, message: Uint8Array, sig: Uint8Array): boolean {
  try {
    return verifier(publicKey, message, sig) === true;
  } catch {
    return false;
  }
}
