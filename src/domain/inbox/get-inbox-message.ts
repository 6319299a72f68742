import { and, asc, eq, or } from "drizzle-orm";
import { transaction } from "../../db/client.ts";
import { messages } from "../../db/schema/index.ts";
import type { Ctx, With } from "../context.ts";
import { notFound } from "../errors.ts";
import { ownIdentity } from "../agent/own-identity.ts";
import { labelsOf } from "./internal/labels-of.ts";
import { messageView, type MessageView } from "../messages/message-view.ts";
import type { MessageRow } from "../internal/message-rows.ts";
import { requireOwner } from "../internal/actors.ts";

/**
 * An inbox message by its envelope id (or its local `msg_…` id). Envelope ids are unique per
 * sender only; when two senders used the same id the first one received wins, so a later sender
 * cannot shadow a message already in the inbox.
 */
export function findInboxRow(ctx: Ctx, id: string): MessageRow | null {
  return (
    ctx.db
      .select()
      .from(messages)
      .where(and(eq(messages.direction, "in"), or(eq(messages.envelopeId, id), eq(messages.id, id))))
      .orderBy(asc(messages.receivedAt), asc(messages.id))
      .get() ?? null
  );
}

/** Opening an unread message marks it read. */
export function getInboxMessage(ctx: With<"node">, id: string): MessageView {
  requireOwner(ctx, "reads the inbox");
  const row = findInboxRow(ctx, id);
  if (!row || row.status === "retracted") throw notFound("message");
  if (row.status === "unread") {
    transaction(ctx.db, (tx) => tx.update(messages).set({ status: "read" }).where(and(eq(messages.id, row.id), eq(messages.status, "unread"))).run());
    row.status = "read";
  }
  const request = row.inReplyTo ? ctx.db.select({ envelopeId: messages.envelopeId }).from(messages).where(eq(messages.id, row.inReplyTo)).get() : null;
  return { ...messageView(row, ownIdentity(ctx.db, ctx.node)?.agentId ?? null, null, request?.envelopeId ?? null), labels: labelsOf(ctx.db, [row.id]).get(row.id) ?? [] };
}
