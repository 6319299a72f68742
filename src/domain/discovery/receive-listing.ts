import { transaction } from "../../db/client.ts";
import type { AgentCard } from "../../ink/index.ts";
import type { With } from "../context.ts";
import { requireAgent } from "../internal/actors.ts";
import type { ListingRequest, PeerRefusalReason } from "../peers/peer-requests.ts";
import { recordNonce } from "../peers/record-nonce.ts";
import { listingProfileFromCard, optedIn } from "./internal/card-listing.ts";
import { endListing, findListing, saveListing } from "./internal/listings.ts";

const PER_REQUESTER = { limit: 10, windowMs: 60_000 };

export type ListingReason = PeerRefusalReason | "rate_limited" | "discovery_not_enabled";

export type ListingOutcome =
  | { ok: true; status: "listed" | "delisted"; agentId: string; handle: string | null; listedAt: string | null; nextValidationAt: string | null }
  | { ok: false; reason: ListingReason; detail?: string; retryAfterSeconds?: number };

/**
 * `POST /ink/v1/directory/listings`: another agent, verified at the edge under the card its request
 * points to (peers/authenticate-peer.ts, docs/decisions/directory-listings.md), asks this node to
 * list or delist it. Publishing needs the card's opt-in; then the nonce is recorded with the write.
 */
export function receiveListing(ctx: With<"limiter" | "directory">, input: { request: ListingRequest }): ListingOutcome {
  const agent = requireAgent(ctx);
  const request = input.request;
  if (request.action === "publish" && !optedIn(agent.card!)) {
    return { ok: false, reason: "discovery_not_enabled", detail: "the card's discovery descriptor must say enabled: true with scope public" };
  }
  return record(ctx, { principal: agent.principal, nonce: agent.nonce, action: request.action, agentId: request.from, cardUrl: request.cardUrl, card: agent.card! }, ctx.clock.now(), ctx.directory.revalidateMs);
}

/**
 * The write, in one transaction: the nonce (a conflict is a replay), then the per-requester limit —
 * charged only now that the request is authenticated and fresh, so requests forged in an agent's
 * name cannot spend its budget (INK §9 step 11 order: nonce, then rate limits; a limited request
 * keeps its nonce spent) — then the listing itself.
 */
function record(
  ctx: With<"limiter">,
  r: { principal: string; nonce: string; action: "publish" | "unpublish"; agentId: string; cardUrl: string; card: AgentCard },
  now: number,
  revalidateMs: number,
): ListingOutcome {
  const result = transaction(ctx.db, (tx) => {
    if (!recordNonce(ctx.db, r.principal, r.nonce, now)) return null;
    const budget = ctx.limiter.consume("directory-listing", r.principal, PER_REQUESTER, now);
    if (!budget.allowed) return budget;
    if (r.action === "publish") {
      return saveListing(tx, { principal: r.principal, agentId: r.agentId, cardUrl: r.cardUrl, source: "remote", profile: listingProfileFromCard(r.card) }, now, now + revalidateMs);
    }
    const existing = findListing(tx, r.principal);
    return existing?.source === "remote" && existing.status === "listed" ? endListing(tx, existing.id, "delisted", now) : (existing ?? undefined);
  });
  if (result === null) return { ok: false, reason: "nonce_replay" };
  if (result !== undefined && "allowed" in result) return { ok: false, reason: "rate_limited", retryAfterSeconds: result.retryAfterSeconds };
  ctx.log.info(r.action === "publish" ? "directory listing added" : "directory listing removed", { principal: r.principal });
  const listed = result?.status === "listed" && r.action === "publish";
  return {
    ok: true,
    status: listed ? "listed" : "delisted",
    agentId: r.agentId,
    handle: result?.handle ?? null,
    listedAt: listed ? new Date(result.listedAt).toISOString() : null,
    nextValidationAt: listed && result.nextValidationAt !== null ? new Date(result.nextValidationAt).toISOString() : null,
  };
}
