// Signed discovery-query envelopes (INK §18, discovery profile): a strict envelope signed with
// the §7 body signature, verified from raw bytes in the order
// schema → signature → audience → freshness → (from, nonce) replay.
import * as v from "valibot";
import { signBody, verifyBody } from "./body-signature.ts";
import { isPlainObject } from "./bytes.ts";
import { type Ed25519Verifier, nobleStrictVerifier } from "./ed25519.ts";
import { normalizePrincipal } from "./principal.ts";
import { parseRawBody } from "./raw-body.ts";
import { type NonceStore, recordNonce } from "./replay.ts";
import { check, strict, text } from "./schema-kit.ts";
import { checkFreshness, parseTimestamp } from "./timestamp.ts";
import { isAcceptedMessageType, messageType, type Wordmark } from "./wordmark.ts";

const MAX_QUERY_BYTES = 65_536;

export const DiscoveryQuery = strict({
  tags: v.optional(v.pipe(v.array(text(64)), v.minLength(1), v.maxLength(32))),
  scope: v.optional(v.picklist(["public", "network_only", "capability_gated", "private"])),
  limit: v.optional(v.pipe(v.number(), v.safeInteger(), v.minValue(1), v.maxValue(100))),
});
export type DiscoveryQuery = v.InferOutput<typeof DiscoveryQuery>;

/** The envelope's shape; `type` is checked against the wordmark separately (dual-accept). */
export const DiscoveryQueryEnvelope = strict({
  protocol: v.literal("ink/0.1"),
  type: v.string(),
  from: text(512),
  to: text(512),
  nonce: v.pipe(v.string(), v.minLength(16), v.maxLength(256)),
  timestamp: v.pipe(v.string(), v.check((s) => parseTimestamp(s) !== null, "strict timestamp")),
  query: DiscoveryQuery,
  signature: v.pipe(v.string(), v.regex(/^[A-Za-z0-9_-]{86}$/)),
});
export type DiscoveryQueryEnvelope = v.InferOutput<typeof DiscoveryQueryEnvelope>;

export type DiscoveryQueryReason = "schema" | "signature" | "audience" | "expired" | "not_yet_valid" | "replay" | "nonce_store_error";

export type DiscoveryQueryInput = {
  /** Exactly one of the raw wire text/bytes (preferred) or an already parsed object. */
  raw?: Uint8Array | string;
  envelope?: unknown;
  /** This directory's identifiers; `to` must equal one of them exactly. */
  audience: string | readonly string[];
  /** Directory clock, epoch ms (a non-finite value is a `schema` failure). */
  now: number;
  /** The requester's Ed25519 key. */
  publicKey: Uint8Array;
  /** `(canonical from, nonce)` single-use store; recorded only after every other check. */
  replay: NonceStore;
  wordmark: Wordmark;
  verifier?: Ed25519Verifier;
};

export type DiscoveryQueryResult =
  | { ok: true; envelope: DiscoveryQueryEnvelope; principal: string }
  | { ok: false; reason: DiscoveryQueryReason; issue?: string };

/** Verify a discovery query in INK §18's order. */
export function verifyDiscoveryQuery(input: DiscoveryQueryInput): DiscoveryQueryResult {
  if (!Number.isFinite(input.now)) return fail("schema", "clock");
  const audience = typeof input.audience === "string" ? [input.audience] : input.audience;
  if (!Array.isArray(audience) || audience.length === 0 || !audience.every((a) => typeof a === "string" && a !== "")) {
    return fail("schema", "audience");
  }
  const parsed = parseDiscoveryQuery(input, input.wordmark);
  if (!parsed.ok) return parsed;
  const env = parsed.envelope;
  if (!verifyBody(env, input.publicKey, input.wordmark, input.verifier ?? nobleStrictVerifier)) return fail("signature");
  if (!audience.includes(env.to)) return fail("audience");
  const fresh = checkFreshness(parseTimestamp(env.timestamp) as number, input.now);
  if (fresh === "timestamp_expired") return fail("expired");
  if (fresh === "timestamp_too_far_future") return fail("not_yet_valid");
  const principal = normalizePrincipal(env.from);
  if (!principal.ok) return fail("schema", "from");
  const recorded = recordNonce(input.replay, principal.principal, env.nonce);
  if (!recorded.ok) return fail(recorded.reason === "nonce_replay" ? "replay" : "nonce_store_error");
  return { ok: true, envelope: env, principal: principal.principal };
}

/**
 * The schema step alone (raw gate ≤ 64 KiB, strict envelope and query, `type` spelling): what a
 * receiver can check before it looks up the requester's keys, so a malformed query costs nothing.
 * @example parseDiscoveryQuery({ raw }, "svc") // { ok: true, envelope } | { ok: false, reason: "schema", issue }
 */
export function parseDiscoveryQuery(
  input: { raw?: Uint8Array | string; envelope?: unknown },
  wordmark: Wordmark,
): { ok: true; envelope: DiscoveryQueryEnvelope } | { ok: false; reason: "schema"; issue?: string } {
  let value: unknown = input.envelope;
  if (input.raw !== undefined) {
    const gate = parseRawBody(input.raw, MAX_QUERY_BYTES);
    if (!gate.ok) return { ok: false, reason: "schema", issue: gate.reason };
    value = gate.value;
  }
  if (!isPlainObject(value)) return { ok: false, reason: "schema", issue: "not a JSON object" };
  const r = check(DiscoveryQueryEnvelope, value);
  if (!r.ok) return { ok: false, reason: "schema", issue: r.issue };
  if (!isAcceptedMessageType(value.type, "discovery_query", wordmark)) return { ok: false, reason: "schema", issue: "type" };
  return { ok: true, envelope: value as DiscoveryQueryEnvelope };
}

export type DiscoveryQueryDraft = { from: string; to: string; nonce: string; timestamp: string; query: DiscoveryQuery; neutralType?: boolean };

/** Build and sign a discovery query (emits `network.<wordmark>.discovery_query` by default). */
export function signDiscoveryQuery(
  draft: DiscoveryQueryDraft,
  secretKey: Uint8Array,
  wordmark: Wordmark,
): { ok: true; envelope: DiscoveryQueryEnvelope } | { ok: false; reason: "schema"; issue: string } {
  const unsigned = {
    protocol: "ink/0.1",
    type: draft.neutralType === true ? "network.ink.discovery_query" : messageType("discovery_query", wordmark),
    from: draft.from,
    to: draft.to,
    nonce: draft.nonce,
    timestamp: draft.timestamp,
    query: draft.query,
  };
  const signed = signBody(unsigned, secretKey, wordmark);
  if (!signed.ok) return { ok: false, reason: "schema", issue: signed.reason };
  const r = check(DiscoveryQueryEnvelope, signed.body);
  return r.ok ? { ok: true, envelope: signed.body as DiscoveryQueryEnvelope } : { ok: false, reason: "schema", issue: r.issue };
}

function fail(reason: DiscoveryQueryReason, issue?: string): { ok: false; reason: DiscoveryQueryReason; issue?: string } {
  return issue === undefined ? { ok: false, reason } : { ok: false, reason, issue };
}
