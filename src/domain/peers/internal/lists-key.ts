import type { AgentCard } from "../../../ink/index.ts";

/** Whether `card` names signing key `keyId` (a card without a key set speaks with its genesis key). */
export function listsKey(card: AgentCard, keyId: string): boolean {
  if (Array.isArray(card.keys?.signing)) return card.keys.signing.some((k) => k.keyId === keyId);
  return keyId === "legacy" || keyId === "bootstrap";
}
