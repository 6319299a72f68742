import { and, asc, eq, or } from "drizzle-orm";
import { messageReceipts, messages, outbox } from "../../db/schema/index.ts";
import type { With } from "../context.ts";
import { notFound } from "../internal/errors.ts";
import { ownIdentity } from "../agent/own-identity.ts";
import { messageView, type MessageView } from "../messages/message-view.ts";
import { requireOwner } from "../internal/actors.ts";

/** An intent the owner sent, by envelope id (or `msg_…`), with its delivery state and the receipts its recipient sent. */
export function getSentMessage(ctx: With<"node">, id: string): MessageView & { receipts: SentReceipt[] } {
  requireOwner(ctx, "reads sent intents");
  const row = ctx.db.select().from(messages).where(and(eq(messages.direction, "out"), or(eq(messages.envelopeId, id), eq(messages.id, id)))).get();
  if (!row) throw notFound("sent message");
  const delivery = ctx.db.select().from(outbox).where(eq(outbox.messageId, row.id)).get() ?? null;
  const request = row.inReplyTo ? ctx.db.select({ envelopeId: messages.envelopeId }).from(messages).where(eq(messages.id, row.inReplyTo)).get() : null;
  const receipts = ctx.db.select().from(messageReceipts).where(eq(messageReceipts.messageId, row.id)).orderBy(asc(messageReceipts.receivedAt)).all();
  return {
    ...messageView(row, ownIdentity(ctx.db, ctx.node)?.agentId ?? null, delivery, request?.envelopeId ?? null),
    receipts: receipts.map((r) => ({ disposition: r.disposition, dispositionAt: r.dispositionAt, receivedAt: new Date(r.receivedAt).toISOString(), receipt: JSON.parse(r.receiptJson) as Record<string, unknown> })),
  };
}

export interface SentReceipt {
  disposition: string;
  dispositionAt: string;
  receivedAt: string;
  receipt: Record<string, unknown>;
}
