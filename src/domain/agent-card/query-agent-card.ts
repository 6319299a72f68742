import { eq } from "drizzle-orm";
import { connections } from "../../db/schema/index.ts";
import type { With } from "../context.ts";
import { requireAgent } from "../internal/actors.ts";
import { type PeerCardUpdate } from "../peers/peer-cards.ts";
import type { PeerRefusalReason } from "../peers/peer-requests.ts";
import { ownProfileSnapshot, type ProfileSnapshot } from "../profile/own-profile-snapshot.ts";
import { getAgentCard, type AgentCard } from "./get-agent-card.ts";
import { signOwnCard } from "./internal/sign-own-card.ts";
import { recordPeerRequest } from "../peers/record-peer-request.ts";

export type CardQueryResult =
  | { ok: true; card: AgentCard & { profileSnapshot: ProfileSnapshot }; scope: "connected" | "public" }
  | { ok: false; reason: PeerRefusalReason | "rate_limited"; detail?: string; retryAfterSeconds?: number };

const PER_REQUESTER = { bucket: "card-query", limit: 30, windowMs: 60_000 };

/**
 * `POST /ink/v1/{agentId}/agent-card-query` (containment profile, INK §12), from a requester
 * verified at the edge: connections get the card with the `connected` profile snapshot, anyone
 * else the `public` one; a private card only to connections (anyone else: as if there were no
 * agent). Replays are refused like intents.
 */
export function queryAgentCard(ctx: With<"node" | "vault" | "limiter">, input: { learned: PeerCardUpdate | null }): CardQueryResult {
  const agent = requireAgent(ctx);
  const recorded = recordPeerRequest(ctx, input.learned, PER_REQUESTER);
  if (!recorded.ok) return recorded.replay ? { ok: false, reason: "nonce_replay" } : { ok: false, reason: "rate_limited", retryAfterSeconds: recorded.retryAfterSeconds };
  const connection = ctx.db.select({ status: connections.status }).from(connections).where(eq(connections.principal, agent.principal)).get();
  const scope = connection?.status === "connected" ? "connected" : "public";
  const card = getAgentCard(ctx);
  // A private card (SPEC: 404 "absent or private") is answered to connections only.
  if (!card || (card.visibility === "private" && scope !== "connected")) return { ok: false, reason: "unknown_recipient" };
  // The snapshot is part of what the proof covers: sign the card as it is answered (INK §13).
  return { ok: true, scope, card: signOwnCard(ctx, { ...card, profileSnapshot: ownProfileSnapshot(ctx.db, scope) }) };
}
