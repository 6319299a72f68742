import type { With } from "../context.ts";
import { notFound } from "../internal/errors.ts";
import { getAgentCard, type AgentCard } from "./get-agent-card.ts";
import { signOwnCard } from "./internal/sign-own-card.ts";

/**
 * The Agent Card as served at the discovery path and its aliases, signed (INK §13 Phase B), for
 * `agentId` (null: this node's one agent, the alias). SPEC: 404 when the agent is absent or private
 * (a private card is only answered to the signed card query), or for any other agent id.
 */
export function getPublicAgentCard(ctx: With<"node" | "vault">, agentId: string | null): AgentCard {
  const card = getAgentCard(ctx);
  if (!card || card.visibility !== "public" || (agentId !== null && agentId !== card.agentId)) throw notFound("agent");
  return signOwnCard(ctx, card);
}
