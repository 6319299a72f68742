import type { Ctx } from "../context.ts";
import { findGrant } from "./internal/find-grant.ts";

/**
 * The card a home agent published to its mailbox here, as it was sent (its proof is the home's),
 * for INK's discovery path under the mailbox base; null when there is no open mailbox or no card yet.
 */
export function getMailboxCard(ctx: Ctx, agentId: string): string | null {
  const grant = findGrant(ctx.db, agentId);
  // INK §12: the card names the id it is fetched for, byte for byte; another spelling is another path.
  return grant?.agentId === agentId ? grant.cardJson : null;
}
