import { eq } from "drizzle-orm";
import type { Db } from "../../db/client.ts";
import { agents, settings } from "../../db/schema/index.ts";
import type { Wordmark } from "../../ink/index.ts";

export type AgentRow = typeof agents.$inferSelect;

/** INK §2.1: the agent id is the wordmark plus the multibase genesis key; it never changes. */
export function agentIdOf(agent: Pick<AgentRow, "genesisKey">, wordmark: Wordmark): string {
  return `${wordmark}:${agent.genesisKey}`;
}

/** The inbound path, published as the card's `endpoint` path and rebuilt by the receiver (INK §6.1). */
export function inboundPathOf(agentId: string): string {
  return `/ink/v1/${agentId}/intent`;
}

export function findAgentRow(db: Db): AgentRow | null {
  return db.select().from(agents).where(eq(agents.id, 1)).get() ?? null;
}

/**
 * SPEC: "404 when the agent is absent or private". `private`: the public card paths answer as if
 * there were no agent; connections still get the card through the signed card query. Stored in
 * `settings` (`card_visibility`); public unless the owner says otherwise.
 */
export type CardVisibility = "public" | "private";
export const CARD_VISIBILITY_SETTING = "card_visibility";

export function cardVisibilityOf(db: Db): CardVisibility {
  const row = db.select({ value: settings.value }).from(settings).where(eq(settings.key, CARD_VISIBILITY_SETTING)).get();
  return row?.value === "private" ? "private" : "public";
}
