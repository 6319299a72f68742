import { eq } from "drizzle-orm";
import * as v from "valibot";
import { transaction, type Tx } from "../../db/client.ts";
import { connections, messages, pendingActions } from "../../db/schema/index.ts";
import type { Ctx, With } from "../context.ts";
import { conflict, notFound } from "../internal/errors.ts";
import { answerConnectionRequest } from "../connections/answer-connection-request.ts";
import { requireReplyRoute } from "../connections/require-reply-route.ts";
import { recordEvent } from "../internal/events.ts";
import { enqueueOutbound } from "../messages/enqueue-outbound.ts";
import { queueDelivery } from "../messages/queue-delivery.ts";
import { getPendingAction } from "./get-pending-action.ts";
import type { PendingActionView } from "./internal/pending-action-view.ts";
import { requireOwner } from "../internal/actors.ts";

export const DecidePendingInput = v.strictObject({
  decision: v.pipe(v.picklist(["approve", "reject"], "decision: approve or reject"), v.description("approve runs the held action; reject drops it")),
});
export type DecidePendingInput = v.InferOutput<typeof DecidePendingInput>;

/** A reply drafted for a held inbound message (by an automation rule) that approval sends. */
export interface HeldReply {
  reply?: { intent: string; payload: Record<string, unknown> };
}

type Row = typeof pendingActions.$inferSelect;

/**
 * The owner decides a pending action, once. Approve runs what was held: a connection request is
 * accepted (connection_response sent), a held inbound message is released to the inbox (and a
 * drafted reply, if any, is sent), a held outbound message is queued. Reject does none of it.
 */
export function decidePending(ctx: With<"node" | "wake">, id: string, input: DecidePendingInput): PendingActionView {
  requireOwner(ctx, "decides");
  const approve = input.decision === "approve";
  let queued = false;
  transaction(ctx.db, (tx) => {
    const row = tx.select().from(pendingActions).where(eq(pendingActions.id, id)).get();
    if (!row) throw notFound("pending action");
    if (row.status !== "pending") throw conflict(`already ${row.status}`);
    const result = run(tx, ctx, row, approve);
    queued = result.queued;
    // answerConnectionRequest may already have settled this action; settle it here otherwise
    tx.update(pendingActions)
      .set({ status: approve ? "approved" : "rejected", decidedAt: ctx.clock.now(), resultJson: JSON.stringify(result.result) })
      .where(eq(pendingActions.id, id))
      .run();
    const requester = row.actionJson ? (JSON.parse(row.actionJson) as { installationId?: unknown }).installationId : undefined;
    recordEvent(tx, approve ? "approval.approved" : "approval.rejected", ctx.clock.now(), { subjectId: id, kind: row.kind, ...(typeof requester === "string" ? { installationId: requester } : {}) });
  });
  if (queued) ctx.wake.outbox();
  return getPendingAction(ctx, id);
}

function run(tx: Tx, ctx: Ctx, row: Row, approve: boolean): { queued: boolean; result: Record<string, unknown> } {
  const now = ctx.clock.now();
  const message = row.messageId ? tx.select().from(messages).where(eq(messages.id, row.messageId)).get() : undefined;
  switch (row.kind) {
    case "connection_request": {
      const connection = row.connectionId ? tx.select().from(connections).where(eq(connections.id, row.connectionId)).get() : undefined;
      if (!connection || connection.status !== "pending") return { queued: false, result: { connection: connection?.status ?? "missing" } };
      requireReplyRoute(tx, connection); // the answer must be able to reach the peer
      const answered = answerConnectionRequest(tx, ctx, connection, approve);
      return { queued: answered !== null, result: { connection: approve ? "connected" : "declined", ...(answered ? { response: answered.envelopeId } : {}) } };
    }
    case "inbound_intent": {
      if (!message) return { queued: false, result: {} };
      tx.update(messages).set({ status: approve ? "unread" : "rejected" }).where(eq(messages.id, message.id)).run();
      const held = row.actionJson ? (JSON.parse(row.actionJson) as HeldReply) : {};
      if (!approve || !held.reply) return { queued: false, result: { message: approve ? "released" : "rejected" } };
      const sent = enqueueOutbound(tx, ctx.ids, { peerPrincipal: message.peerPrincipal, peerAgentId: message.peerAgentId, intent: held.reply.intent, payload: held.reply.payload, correlationId: message.correlationId, inReplyTo: message.id }, now);
      tx.update(messages).set({ status: "responded", respondedAt: now }).where(eq(messages.id, message.id)).run();
      return { queued: true, result: { message: "responded", response: sent.envelopeId } };
    }
    case "outbound_intent": {
      if (!message || message.status !== "held") return { queued: false, result: { message: message?.status ?? "missing" } };
      if (!approve) {
        tx.update(messages).set({ status: "cancelled" }).where(eq(messages.id, message.id)).run();
        return { queued: false, result: { message: "cancelled" } };
      }
      // An extension's held intent goes out as the owner's approval of what the agent proposed (INK §2 provenance).
      const provenance = message.provenanceJson ? JSON.stringify({ ...JSON.parse(message.provenanceJson), origin: "agent_approved" }) : null;
      tx.update(messages).set({ status: "queued", provenanceJson: provenance }).where(eq(messages.id, message.id)).run();
      queueDelivery(tx, ctx.ids, message.id, message.peerPrincipal, now);
      return { queued: true, result: { message: "queued", id: message.envelopeId } };
    }
  }
}
