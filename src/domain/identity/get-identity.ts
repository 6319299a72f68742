import type { With } from "../context.ts";
import { noAgentYet } from "../internal/errors.ts";
import { findAgentRow } from "../agent/find-agent-row.ts";
import { requireOwner } from "../internal/actors.ts";
import { identityOf, type AgentIdentity } from "./internal/identity-of.ts";

/** `GET /api/svc`: the agent's identity; not found while the node has no agent. */
export function getIdentity(ctx: With<"node">): AgentIdentity {
  requireOwner(ctx, "sees the agent's identity");
  const agent = findAgentRow(ctx.db);
  if (!agent) throw noAgentYet();
  return identityOf(ctx, agent);
}

