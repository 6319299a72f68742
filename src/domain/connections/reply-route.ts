import type { Db, Tx } from "../../db/client.ts";
import type { connections } from "../../db/schema/index.ts";
import type { With } from "../context.ts";
import { conflict, DomainError } from "../errors.ts";
import { fetchPeerCard } from "../peers/fetch-peer-card.ts";
import { findPeerCard, hasSigningSet, type PeerCardUpdate } from "../peers/peer-cards.ts";

type ConnectionRow = typeof connections.$inferSelect;

/**
 * Where an answer to a peer will go (the outbox delivers to its card's endpoint), settled before
 * anything changes: a card URL the owner gives now (fetched and bound to the peer's id; returned,
 * to be saved with the answer), else a card the node already knows for the peer (one it fetched,
 * or a hint the peer gave whose proof roots in its id). A peer with neither — a key-derived agent
 * that sent no usable card — gets an error the owner can act on, instead of a "queued" answer
 * whose delivery can only fail.
 */
export async function replyRoute(ctx: With<"node" | "vault" | "peers">, connection: ConnectionRow, cardUrl: string | undefined): Promise<PeerCardUpdate | null> {
  if (!connection.principal || !connection.agentId) throw conflict("this contact has no agent id to reply to or bind a card to");
  if (cardUrl !== undefined) {
    const fetched = await fetchPeerCard(ctx, { cardUrl, agentId: connection.agentId });
    if (!fetched.ok) throw new DomainError("invalid_input", `no valid Agent Card for ${connection.agentId} at cardUrl: ${fetched.reason}`);
    return { principal: connection.principal, agentId: connection.agentId, cardUrl, card: { json: fetched.cardJson, signingSet: hasSigningSet(fetched.card) }, refreshAttempt: true };
  }
  requireReplyRoute(ctx.db, connection);
  return null;
}

/** The synchronous half: throws the owner-readable conflict when no card is known for the peer. */
export function requireReplyRoute(db: Db | Tx, connection: Pick<ConnectionRow, "principal" | "agentId">): void {
  const known = connection.principal ? findPeerCard(db, connection.principal) : null;
  if (known?.cardUrl || known?.cardJson) return;
  throw conflict(
    `${connection.agentId ?? "this agent"} sent no Agent Card this node can reply to (none, or one its key did not sign): ` +
      "answer with cardUrl, the URL of its Agent Card that you trust (POST /api/svc/inbox/:id/respond or PATCH /api/svc/connections/:id), " +
      "or block it (PATCH status blocked) to drop the request without an answer",
  );
}
