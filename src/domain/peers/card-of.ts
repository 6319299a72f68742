import { bindAgentCard, verifyAgentCardProof, type AgentCard } from "../../ink/index.ts";
import { nativeStrictVerifier } from "../../security/ed25519-native.ts";
import { type PeerCardRow } from "./peer-cards.ts";

/**
 * The stored card, bound to its id again on every read (INK §2.1, §13, `bindAgentCard`): cards are
 * stored bound, and this keeps rows written before the rule from speaking with keys it refuses.
 */
export function cardOf(row: PeerCardRow | null): AgentCard | null {
  if (!row?.cardJson) return null;
  let card: AgentCard;
  try {
    card = JSON.parse(row.cardJson) as AgentCard;
  } catch {
    return null;
  }
  if (card === null || typeof card !== "object") return null;
  const bound = bindAgentCard(card, verifyAgentCardProof(card, { verifier: nativeStrictVerifier }));
  return bound.ok ? bound.card : null;
}
