import { asc } from "drizzle-orm";
import { agentKeys } from "../../db/schema/index.ts";
import type { Ctx } from "../context.ts";
import { requireOwner } from "../internal/actors.ts";

export type AgentKeyRecord = typeof agentKeys.$inferSelect;

/** Public key records (never private material), oldest first. */
export function listAgentKeys(ctx: Ctx): AgentKeyRecord[] {
  requireOwner(ctx, "sees the agent's keys");
  return ctx.db.select().from(agentKeys).orderBy(asc(agentKeys.createdAt), asc(agentKeys.keyId)).all();
}
