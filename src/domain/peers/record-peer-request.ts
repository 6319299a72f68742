import { transaction } from "../../db/client.ts";
import type { RateRule } from "../../security/rate-limit.ts";
import type { With } from "../context.ts";
import { requireAgent } from "../internal/actors.ts";
import type { PeerCardUpdate } from "./peer-cards.ts";
import { recordNonce } from "./record-nonce.ts";
import { savePeerCard } from "./save-peer-card.ts";

/**
 * What a verb answering a signed request records before its answer, in INK §9 step 11's order: in
 * one transaction what was learned of the sender's card and the replay nonce (a conflict is a
 * replay), then the per-requester limit — charged only for an authenticated, fresh request, so
 * requests forged in an agent's name cannot spend its budget.
 */
export function recordPeerRequest(
  ctx: With<"limiter">,
  learned: PeerCardUpdate | null,
  limit: RateRule & { bucket: string },
): { ok: true } | { ok: false; replay: true } | { ok: false; replay: false; retryAfterSeconds: number } {
  const agent = requireAgent(ctx);
  const now = ctx.clock.now();
  const replayed = transaction(ctx.db, (tx) => {
    if (learned) savePeerCard(tx, learned, now);
    return !recordNonce(ctx.db, agent.principal, agent.nonce, now);
  });
  if (replayed) return { ok: false, replay: true };
  const limited = ctx.limiter.consume(limit.bucket, agent.principal, limit, now);
  return limited.allowed ? { ok: true } : { ok: false, replay: false, retryAfterSeconds: limited.retryAfterSeconds };
}
