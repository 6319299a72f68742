import type { connections } from "../../db/schema/index.ts";
import type { With } from "../context.ts";
import { DomainError } from "../errors.ts";
import { conflict } from "../internal/errors.ts";
import { fetchPeerCard } from "../peers/fetch-peer-card.ts";
import { type PeerCardUpdate } from "../peers/peer-cards.ts";
import { hasSigningSet } from "../peers/has-signing-set.ts";
import { requireReplyRoute } from "./require-reply-route.ts";

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

