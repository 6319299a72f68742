import { and, eq, or } from "drizzle-orm";
import { messages, outbox } from "../../db/schema/index.ts";
import type { With } from "../context.ts";
import { notFound } from "../internal/errors.ts";
import { ownIdentity } from "../agent/own-identity.ts";
import { messageView, type MessageView } from "../messages/message-view.ts";
import { requireOwner } from "../internal/actors.ts";

/** An intent the owner sent, by envelope id (or `msg_…`), with its delivery state. */
export function getSentMessage(ctx: With<"node">, id: string): MessageView {
  requireOwner(ctx, "reads sent intents");
  const row = ctx.db.select().from(messages).where(and(eq(messages.direction, "out"), or(eq(messages.envelopeId, id), eq(messages.id, id)))).get();
  if (!row) throw notFound("sent message");
  const delivery = ctx.db.select().from(outbox).where(eq(outbox.messageId, row.id)).get() ?? null;
  const request = row.inReplyTo ? ctx.db.select({ envelopeId: messages.envelopeId }).from(messages).where(eq(messages.id, row.inReplyTo)).get() : null;
  return messageView(row, ownIdentity(ctx.db, ctx.node)?.agentId ?? null, delivery, request?.envelopeId ?? null);
}
