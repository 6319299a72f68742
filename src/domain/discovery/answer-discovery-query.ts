import type { DiscoveryQueryEnvelope } from "../../ink/index.ts";
import type { With } from "../context.ts";
import { requireAgent } from "../internal/actors.ts";
import { type PeerCardUpdate } from "../peers/peer-cards.ts";
import type { PeerRefusalReason } from "../peers/peer-requests.ts";
import { columnPhrase } from "../internal/fts-query.ts";
import { discoveryResult, facetNeedle, type DiscoveryResult } from "./internal/listings.ts";
import { matchListings } from "./internal/match-listings.ts";
import { recordPeerRequest } from "../peers/record-peer-request.ts";

export const MAX_QUERY_BYTES = 65_536;
const DEFAULT_LIMIT = 20;
const PER_REQUESTER = { bucket: "discovery-query", limit: 30, windowMs: 60_000 };

export type DiscoveryQueryOutcome =
  | { ok: true; results: DiscoveryResult[]; query: { tags: string[]; limit: number } }
  | { ok: false; reason: PeerRefusalReason | "rate_limited"; detail?: string; retryAfterSeconds?: number };

/**
 * `POST /ink/v1/discovery/query`: a signed INK discovery-query envelope (INK §18), verified at the
 * edge in INK's order (peers/authenticate-peer.ts); its (from, nonce) is recorded here, last.
 * Answers public listings carrying every `query.tags` value as a tag or skill (AND,
 * case-insensitive), at most `query.limit` (1-100, default 20), best tag match first (bm25);
 * without tags, every public listing, oldest first.
 */
export function answerDiscoveryQuery(ctx: With<"limiter">, input: { request: DiscoveryQueryEnvelope; learned: PeerCardUpdate | null }): DiscoveryQueryOutcome {
  requireAgent(ctx);
  const recorded = recordPeerRequest(ctx, input.learned, PER_REQUESTER);
  if (!recorded.ok) return recorded.replay ? { ok: false, reason: "replay" } : { ok: false, reason: "rate_limited", retryAfterSeconds: recorded.retryAfterSeconds };
  const tags = input.request.query.tags ?? [];
  const limit = input.request.query.limit ?? DEFAULT_LIMIT;
  const clauses = tags.map((t) => columnPhrase(["skills", "tags"], t)).filter((c): c is string => c !== null);
  const rows = matchListings(ctx.db, { match: clauses.length > 0 ? clauses.join(" AND ") : null, needles: tags.map((t) => facetNeedle("s", t)), limit });
  return { ok: true, results: rows.map(discoveryResult), query: { tags, limit } };
}
