import { transaction, type Tx } from "../../db/client.ts";
import {
  checkFreshness,
  isKeyUsableAt,
  normalizePrincipal,
  parseDiscoveryQuery,
  parseTimestamp,
  verifyDiscoveryQuery,
  type DiscoveryQueryReason,
  type DiscoveryQueryResult,
  type NonceStore,
  type SenderKeys,
} from "../../ink/index.ts";
import { nativeStrictVerifier } from "../../security/ed25519-native.ts";
import type { With } from "../context.ts";
import { insertNonce, isNonceSeen } from "../federation/inbound-nonces.ts";
import { ownIdentity } from "../federation/own-identity.ts";
import { savePeerCard } from "../peers/peer-cards.ts";
import { resolveInboundSenderKeys } from "../peers/resolve-sender-keys.ts";
import { columnPhrase } from "./fts-query.ts";
import { discoveryResult, facetNeedle, type DiscoveryResult } from "./listings.ts";
import { matchListings } from "./match-listings.ts";

export const MAX_QUERY_BYTES = 65_536;
const DEFAULT_LIMIT = 20;
const PER_REQUESTER = { limit: 30, windowMs: 60_000 };

export type DiscoveryQueryOutcome =
  | { ok: true; results: DiscoveryResult[]; query: { tags: string[]; limit: number } }
  | { ok: false; reason: DiscoveryQueryReason | "unknown_recipient" | "rate_limited"; detail?: string; retryAfterSeconds?: number };

/**
 * `POST /ink/v1/discovery/query`: a signed INK discovery-query envelope (INK §18), verified from
 * the raw bytes in INK's order (schema → signature → audience → freshness → (from, nonce) replay
 * in the persisted nonce table). The requester's key: its card's active keys when this node knows
 * its card (a trusted base: recorded card URL, connection, did:web), otherwise the genesis key of a
 * key-derived id (INK §10 bootstrap). Answers public listings carrying every `query.tags` value as
 * a tag or skill (AND, case-insensitive), at most `query.limit` (1-100, default 20), best tag
 * match first (bm25); without tags, every public listing, oldest first.
 */
export async function answerDiscoveryQuery(ctx: With<"node" | "vault" | "peers" | "limiter">, input: { body: Uint8Array }): Promise<DiscoveryQueryOutcome> {
  const now = ctx.clock.now();
  const own = ownIdentity(ctx.db, ctx.node);
  if (!own) return { ok: false, reason: "unknown_recipient" };
  // INK §18's first step before anything else: a malformed query looks up no key, fetches nothing.
  const shape = parseDiscoveryQuery({ raw: input.body }, ctx.node.wordmark);
  if (!shape.ok) return { ok: false, reason: "schema", ...(shape.issue ? { detail: shape.issue } : {}) };
  const env = shape.envelope;
  const principal = normalizePrincipal(env.from);
  if (!principal.ok) return { ok: false, reason: "schema", detail: "from" };
  // The checks that need no key (audience, freshness, an unused nonce) decide whether the
  // requester's card may be fetched; the answer still follows INK's order, with stored keys.
  const timestampMs = parseTimestamp(env.timestamp) ?? now;
  const cheap = env.to === own.agentId && checkFreshness(timestampMs, now) === "fresh" && !isNonceSeen(ctx.db, principal.principal, env.nonce);
  const resolved = await resolveInboundSenderKeys(ctx, { from: env.from, principal: principal.principal, keyIdHint: null, network: cheap });
  const learned = resolved.learned;
  let candidates = usableKeys(resolved.keys, timestampMs);
  if (candidates.length === 0) candidates = [new Uint8Array(32)]; // no usable key: the answer is `signature`
  const verified = transaction(ctx.db, (tx) => {
    if (learned) savePeerCard(tx, learned, now);
    let result: DiscoveryQueryResult = { ok: false, reason: "signature" };
    // The envelope names no key: try each active key; only a signature failure moves on.
    for (const publicKey of candidates) {
      result = verifyDiscoveryQuery({ envelope: env, audience: [own.agentId], now, publicKey, replay: nonceStore(tx, now), wordmark: ctx.node.wordmark, verifier: nativeStrictVerifier });
      if (result.ok || result.reason !== "signature") break;
    }
    return result;
  });
  if (!verified.ok) return { ok: false, reason: verified.reason, ...(verified.issue ? { detail: verified.issue } : {}) };
  // Charged only once the query is authenticated and fresh: forged ones cannot spend an agent's budget.
  const limited = ctx.limiter.consume("discovery-query", verified.principal, PER_REQUESTER, now);
  if (!limited.allowed) return { ok: false, reason: "rate_limited", retryAfterSeconds: limited.retryAfterSeconds };
  const tags = verified.envelope.query.tags ?? [];
  const limit = verified.envelope.query.limit ?? DEFAULT_LIMIT;
  const clauses = tags.map((t) => columnPhrase(["skills", "tags"], t)).filter((c): c is string => c !== null);
  const rows = matchListings(ctx.db, { match: clauses.length > 0 ? clauses.join(" AND ") : null, needles: tags.map((t) => facetNeedle("s", t)), limit });
  return { ok: true, results: rows.map(discoveryResult), query: { tags, limit } };
}

/** Live authentication: active keys usable at the envelope's time (retired keys sign no new request). */
function usableKeys(keys: SenderKeys, atMs: number): Uint8Array[] {
  if (keys.kind === "bootstrap") return [keys.publicKey];
  if (keys.kind === "none") return [];
  return keys.keys.filter((k) => k.status === "active" && isKeyUsableAt(k, atMs)).map((k) => k.publicKey);
}

/** (canonical from, nonce) in the persisted inbound nonce table, inserted atomically. */
function nonceStore(tx: Tx, now: number): NonceStore {
  return { addIfAbsent: (scope, nonce) => insertNonce(tx, scope, nonce, now) };
}
