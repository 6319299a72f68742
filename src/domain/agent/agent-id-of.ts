import type { Wordmark } from "../../ink/index.ts";
import { type AgentRow } from "./find-agent-row.ts";

/** INK §2.1: the agent id is the wordmark plus the multibase genesis key; it never changes. */
export function agentIdOf(agent: Pick<AgentRow, "genesisKey">, wordmark: Wordmark): string {
  return `${wordmark}:${agent.genesisKey}`;
}
