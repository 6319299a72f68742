import { type AgentCard } from "../../ink/index.ts";

export function hasSigningSet(card: AgentCard): boolean {
  return Array.isArray(card.keys?.signing);
}
