import { and, eq } from "drizzle-orm";
import { transaction } from "../../db/client.ts";
import { messages } from "../../db/schema/index.ts";
import type { With } from "../context.ts";
import { notFound } from "../internal/errors.ts";
import { ownIdentity } from "../agent/own-identity.ts";
import { labelsOf } from "./internal/labels-of.ts";
import { messageView, type MessageView } from "../messages/message-view.ts";
import { requireOwner } from "../internal/actors.ts";
import { findInboxRow } from "./find-inbox-row.ts";

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
