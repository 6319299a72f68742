import type { With } from "../context.ts";
import type { CreateAgentInput } from "./check-agent-input.ts";
import { createAgent } from "./create-agent.ts";
import { identityOf, type AgentIdentity } from "./internal/identity-of.ts";
import { requireOwner } from "../internal/actors.ts";

/** `POST /api/svc`: the owner creates the node's agent when it was started without one (conflict if it exists). */
export function createAgentForOwner(ctx: With<"vault" | "node">, input: CreateAgentInput): AgentIdentity {
  requireOwner(ctx, "can create the agent");
  const agent = createAgent(ctx, input);
  return identityOf(ctx, agent);
}
