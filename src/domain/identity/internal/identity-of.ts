import type { With } from "../../context.ts";
import { getAgentCard } from "../../agent-card/get-agent-card.ts";
import { type AgentRow } from "../../agent/find-agent-row.ts";
import { inboundBaseOf } from "../../agent/inbound-base-of.ts";

/** What the owner sees of the agent's identity: its ids, its names, its card and current keys. */
export interface AgentIdentity {
  agentId: string;
  handle: string;
  displayName: string;
  timezone: string;
  cardUrl: string;
  endpoint: string;
  publicKeyMultibase: string;
  currentSigningKeyId: string;
  currentEncryptionKeyId: string | null;
  keySetVersion: number;
  /** `private`: the public card paths answer 404 (PUT /api/svc/visibility). */
  visibility: "public" | "private";
  createdAt: string;
  updatedAt: string;
}

export function identityOf(ctx: With<"node">, agent: AgentRow): AgentIdentity {
  const card = getAgentCard(ctx)!;
  return {
    agentId: card.agentId,
    handle: agent.handle,
    displayName: agent.displayName,
    timezone: agent.timezone,
    cardUrl: `${inboundBaseOf(ctx.node)}/ink/v1/${encodeURIComponent(card.agentId)}/agent.json`,
    endpoint: card.endpoint,
    publicKeyMultibase: card.publicKeyMultibase,
    currentSigningKeyId: card.currentSigningKeyId,
    currentEncryptionKeyId: card.currentEncryptionKeyId ?? null,
    keySetVersion: agent.keySetVersion,
    visibility: card.visibility,
    createdAt: new Date(agent.createdAt).toISOString(),
    updatedAt: new Date(agent.updatedAt).toISOString(),
  };
}
