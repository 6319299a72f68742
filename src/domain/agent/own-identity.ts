import type { Db } from "../../db/client.ts";
import type { NodeIdentity } from "../context.ts";
import { findAgentRow, type AgentRow } from "./find-agent-row.ts";
import { inboundBaseOf } from "./inbound-base-of.ts";
import { inboundPathOf } from "./inbound-path-of.ts";
import { agentIdOf } from "./agent-id-of.ts";

export interface OwnIdentity {
  agent: AgentRow;
  agentId: string;
  /** The path of the published endpoint: the signature-base PATH a receiver rebuilds (INK §6.1). */
  endpointPath: string;
  cardUrl: string;
}

export function ownIdentity(db: Db, node: NodeIdentity): OwnIdentity | null {
  const agent = findAgentRow(db);
  if (!agent) return null;
  return identityOf(agent, node);
}

function identityOf(agent: AgentRow, node: NodeIdentity): OwnIdentity {
  const agentId = agentIdOf(agent, node.wordmark);
  const base = inboundBaseOf(node);
  const endpointPath = new URL(base + inboundPathOf(agentId)).pathname;
  return { agent, agentId, endpointPath, cardUrl: `${base}/ink/v1/${encodeURIComponent(agentId)}/agent.json` };
}

