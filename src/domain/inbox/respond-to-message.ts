import { and, eq } from "drizzle-orm";
import * as v from "valibot";
import { transaction, type Db, type Tx } from "../../db/client.ts";
import { connections, messages, pendingActions } from "../../db/schema/index.ts";
import type { With } from "../context.ts";
import { conflict, invalidInput, notFound } from "../internal/errors.ts";
import { answerConnectionRequest } from "../connections/answer-connection-request.ts";
import { replyRoute } from "../connections/reply-route.ts";
import { RESPONSE_OF } from "../internal/response-intents.ts";
import { sendIntent, type SendResult } from "../outbox/send-intent.ts";
import { checkIntent } from "../outbox/check-intent.ts";
import { findInboxRow } from "./find-inbox-row.ts";
import { requireOwner } from "../internal/actors.ts";

export const RespondInput = v.strictObject({
  payload: v.pipe(v.record(v.string(), v.unknown()), v.description("Payload of the matching _response intent")),
  intent: v.optional(v.pipe(v.string(), v.maxLength(253), v.description("Defaults to the _response intent matching the message"))),
  cardUrl: v.optional(v.pipe(v.string(), v.maxLength(2048), v.description("The sender's Agent Card URL, if the node does not know where to reply"))),
});
export type RespondInput = v.InferOutput<typeof RespondInput>;

/**
 * Answers an inbox message with its matching `_response` intent in the same thread. Answering a
 * connection_request accepts or declines the connection (payload.status).
 */
export async function respondToMessage(ctx: With<"node" | "vault" | "peers" | "wake">, id: string, input: RespondInput): Promise<SendResult> {
  requireOwner(ctx, "answers messages");
  const message = findInboxRow(ctx, id);
  if (!message || message.status === "retracted") throw notFound("message");
  const intent = RESPONSE_OF[message.intent];
  if (!intent) throw invalidInput(`a ${message.intent} has no response intent`);
  if (input.intent !== undefined && input.intent !== intent) throw invalidInput(`intent: a ${message.intent} is answered with ${intent}`);
  checkIntent(intent, input.payload);

  if (message.intent === "connection_request") {
    const pendingRequest = (db: Db | Tx) => {
      const row = db.select().from(connections).where(eq(connections.principal, message.peerPrincipal)).get();
      if (!row || row.status !== "pending" || row.requestMessageId !== message.id) throw conflict("this connection request was already answered");
      return row;
    };
    if (input.payload.status === "pending") throw invalidInput("payload.status: answer with accepted or declined");
    const note = typeof input.payload.note === "string" ? input.payload.note : undefined;
    // The answer must be able to reach the peer: a card URL given now, or a card already known.
    const route = await replyRoute(ctx, pendingRequest(ctx.db), input.cardUrl);
    const sent = transaction(ctx.db, (tx) => answerConnectionRequest(tx, ctx, pendingRequest(tx), input.payload.status === "accepted", note, route));
    if (!sent) throw conflict("cannot answer: the request has no sender to reply to");
    ctx.wake.outbox();
    return { id: sent.envelopeId, correlationId: sent.correlationId, status: "queued", messageId: sent.messageId, conversationId: sent.conversationId, peerPrincipal: message.peerPrincipal };
  }

  const sent = await sendIntent(ctx, { to: message.peerAgentId, intent, payload: input.payload, correlationId: message.correlationId, ...(input.cardUrl ? { cardUrl: input.cardUrl } : {}) }, { inReplyTo: message.id });
  const now = ctx.clock.now();
  transaction(ctx.db, (tx) => {
    tx.update(messages).set({ status: "responded", respondedAt: now }).where(eq(messages.id, message.id)).run();
    if (message.pendingActionId) {
      tx.update(pendingActions)
        .set({ status: "approved", decidedAt: now, resultJson: JSON.stringify({ message: "responded", response: sent.id }) })
        .where(and(eq(pendingActions.id, message.pendingActionId), eq(pendingActions.status, "pending")))
        .run();
    }
  });
  return sent;
}
