import type { With } from "../context.ts";
import { DomainError } from "../errors.ts";
import { requireAgent } from "../internal/actors.ts";
import type { PeerCardUpdate } from "../peers/peer-cards.ts";
import type { MarketplaceReviewRequest } from "../peers/peer-requests.ts";
import { recordPeerRequest } from "../peers/record-peer-request.ts";
import { rateExtension } from "./rate-extension.ts";

/** Another agent's ratings, per authenticated requester (rate limits on every public write). */
const PER_REQUESTER = { bucket: "marketplace-review", limit: 10, windowMs: 60_000 };

export type ReviewOutcome = { ok: true; result: ReturnType<typeof rateExtension> } | { ok: false; reason: "nonce_replay" | "rate_limited"; retryAfterSeconds?: number };

/**
 * A rating from another node's agent, verified at the edge (the INK signature plugin): the
 * extension in the path must be the one signed in the body; the nonce and the per-requester
 * budget are recorded first (a replay is refused, and only authenticated requests spend an
 * agent's budget); then the vote counts once for that agent (409 already_reviewed).
 */
export function receiveExtensionReview(ctx: With<"node" | "limiter">, extensionId: string, input: { request: MarketplaceReviewRequest; learned: PeerCardUpdate | null }): ReviewOutcome {
  requireAgent(ctx);
  if (input.request.extensionId !== extensionId) throw new DomainError("invalid_input", "extensionId: the signed body names another extension than the path");
  const recorded = recordPeerRequest(ctx, input.learned, PER_REQUESTER);
  if (!recorded.ok) return recorded.replay ? { ok: false, reason: "nonce_replay" } : { ok: false, reason: "rate_limited", retryAfterSeconds: recorded.retryAfterSeconds };
  return { ok: true, result: rateExtension(ctx, extensionId, { rating: input.request.rating, comment: input.request.comment }) };
}
