import { transaction } from "../../db/client.ts";
import type { DiscoveryQueryEnvelope } from "../../ink/index.ts";
import type { With } from "../context.ts";
import { requireAgent } from "../internal/actors.ts";
import { type PeerCardUpdate } from "../peers/peer-cards.ts";
import { savePeerCard } from "../peers/save-peer-card.ts";
import type { PeerRefusalReason } from "../peers/peer-requests.ts";
import { recordNonce } from "../peers/record-nonce.ts";
import { columnPhrase } from "./internal/fts-query.ts";
import { discoveryResult, facetNeedle, type DiscoveryResult } from "./internal/listings.ts";
import { matchListings } from "./internal/match-listings.ts";

export const MAX_QUERY_BYTES = 65_536;
const DEFAULT_LIMIT = 20;
const PER_REQUESTER = { limit: 30, windowMs: 60_000 };

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
  const agent = requireAgent(ctx);
  const now = ctx.clock.now();
  const learned = input.learned;
  const replayed = transaction(ctx.db, (tx) => {
    if (learned) savePeerCard(tx, learned, now);
    return !recordNonce(ctx.db, agent.principal, agent.nonce, now);
  });
  if (replayed) return { ok: false, reason: "replay" };
  // Charged only once the query is authenticated and fresh: forged ones cannot spend an agent's budget.
  const limited = ctx.limiter.consume("discovery-query", agent.principal, PER_REQUESTER, now);
  if (!limited.allowed) return { ok: false, reason: "rate_limited", retryAfterSeconds: limited.retryAfterSeconds };
  const tags = input.request.query.tags ?? [];
  const limit = input.request.query.limit ?? DEFAULT_LIMIT;
  const clauses = tags.map((t) => columnPhrase(["skills", "tags"], t)).filter((c): c is string => c !== null);
  const rows = matchListings(ctx.db, { match: clauses.length > 0 ? clauses.join(" AND ") : null, needles: tags.map((t) => facetNeedle("s", t)), limit });
  return { ok: true, results: rows.map(discoveryResult), query: { tags, limit } };
}
