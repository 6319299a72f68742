import { and, eq } from "drizzle-orm";
import type { Tx } from "../../db/client.ts";
import { connections, messages, pendingActions } from "../../db/schema/index.ts";
import type { Ctx } from "../context.ts";
import { recordEvent } from "../internal/events.ts";
import { enqueueOutbound, type Enqueued } from "../messages/enqueue-outbound.ts";
import { type PeerCardUpdate } from "../peers/peer-cards.ts";
import { savePeerCard } from "../peers/save-peer-card.ts";
import { ownProfileSnapshot } from "../profile/own-profile-snapshot.ts";

type ConnectionRow = typeof connections.$inferSelect;

/**
 * Accepting or declining a peer's connection request, wherever the owner does it (PATCH on the
 * connection, a pending-action decision, or a respond on the request message): the connection
 * changes state, the request is answered with a connection_response in its thread (with the
 * `connected` profile snapshot when accepting), and its pending action is settled. `route` is a
 * card the owner gave for the reply (from `replyRoute`), saved with the answer.
 */
export function answerConnectionRequest(tx: Tx, ctx: Ctx, connection: ConnectionRow, accept: boolean, note?: string, route: PeerCardUpdate | null = null): Enqueued | null {
  const now = ctx.clock.now();
  if (route) {
    savePeerCard(tx, route, now);
    tx.update(connections).set({ cardUrl: route.cardUrl ?? null }).where(eq(connections.id, connection.id)).run();
  }
  tx.update(connections)
    .set({ status: accept ? "connected" : "declined", updatedAt: now, ...(accept && connection.status !== "connected" ? { connectedAt: now } : {}) })
    .where(eq(connections.id, connection.id))
    .run();
  recordEvent(tx, accept ? "connection.accepted" : "connection.declined", now, { subjectId: connection.id, peerPrincipal: connection.principal ?? undefined, by: "owner" });
  const request = connection.requestMessageId ? tx.select().from(messages).where(eq(messages.id, connection.requestMessageId)).get() : null;
  if (request?.pendingActionId) {
    tx.update(pendingActions)
      .set({ status: accept ? "approved" : "rejected", decidedAt: now, resultJson: JSON.stringify({ connection: accept ? "connected" : "declined" }) })
      .where(and(eq(pendingActions.id, request.pendingActionId), eq(pendingActions.status, "pending")))
      .run();
  }
  if (!request || !connection.principal || !connection.agentId) return null;
  tx.update(messages).set({ status: accept ? "responded" : "rejected", respondedAt: now }).where(eq(messages.id, request.id)).run();
  const payload: Record<string, unknown> = { status: accept ? "accepted" : "declined" };
  if (accept) payload.profileSnapshot = ownProfileSnapshot(tx, "connected");
  if (note) payload.note = note;
  return enqueueOutbound(tx, ctx.ids, { peerPrincipal: connection.principal, peerAgentId: connection.agentId, intent: "connection_response", payload, correlationId: request.correlationId, inReplyTo: request.id }, now);
}
