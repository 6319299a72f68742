import type { Ctx } from "../context.ts";
import { notFound } from "../errors.ts";
import { agentIdOf, findAgentRow, type Wordmark } from "./agent.ts";
import { normalizeHandle, RESERVED_PATHS } from "./handle.ts";

export interface HandleResolution {
  found: boolean;
  agentId: string | null;
  handle: string;
}

/** `GET /{handle}`: an unknown handle is an answer (found: false), a reserved path is not a handle. */
export function resolveHandle(ctx: Ctx, raw: string, wordmark: Wordmark): HandleResolution {
  const handle = normalizeHandle(raw);
  if (RESERVED_PATHS.has(handle)) throw notFound(`/${raw}`);
  const agent = findAgentRow(ctx.db);
  if (agent && agent.handle === handle) return { found: true, agentId: agentIdOf(agent, wordmark), handle: agent.handle };
  return { found: false, agentId: null, handle };
}
