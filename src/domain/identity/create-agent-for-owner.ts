import type { KeyVault } from "../../adapters/key-vault.ts";
import type { Ctx } from "../context.ts";
import { DomainError } from "../errors.ts";
import type { NodeIdentity } from "./agent.ts";
import { createAgent, type CreateAgentInput } from "./create-agent.ts";
import { identityOf, type AgentIdentity } from "./get-identity.ts";

/** `POST /api/svc`: the owner creates the node's agent when it was started without one (conflict if it exists). */
export function createAgentForOwner(ctx: Ctx, input: CreateAgentInput, deps: { vault: KeyVault; node: NodeIdentity }): AgentIdentity {
  if (ctx.actor.kind !== "owner") throw new DomainError("forbidden", "only the owner can create the agent");
  const agent = createAgent(ctx, input, { vault: deps.vault });
  return identityOf(ctx, agent, deps.node);
}
