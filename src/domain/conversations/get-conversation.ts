import { asc, eq, inArray } from "drizzle-orm";
import { conversations, messages, outbox } from "../../db/schema/index.ts";
import type { With } from "../context.ts";
import { notFound } from "../internal/errors.ts";
import { ownIdentity } from "../agent/own-identity.ts";
import { messageView } from "../messages/message-view.ts";
import { requireOwner } from "../internal/actors.ts";
import type { MessageView } from "../messages/message-view.ts";
import { conversationView, peersOf, type ConversationView } from "./internal/conversation-view.ts";

export interface ConversationDetail extends ConversationView {
  /** Every message of the thread, oldest first; outbound ones with their delivery state. */
  messages: MessageView[];
}

/** All messages of a thread, oldest first; outbound ones with their delivery state. */
export function getConversation(ctx: With<"node">, id: string): ConversationDetail {
  requireOwner(ctx, "reads conversations");
  const row = ctx.db.select().from(conversations).where(eq(conversations.id, id)).get();
  if (!row) throw notFound("conversation");
  const rows = ctx.db.select().from(messages).where(eq(messages.conversationId, id)).orderBy(asc(messages.receivedAt), asc(messages.id)).all();
  const deliveries = new Map(
    rows.length ? ctx.db.select().from(outbox).where(inArray(outbox.messageId, rows.map((r) => r.id))).all().map((o) => [o.messageId, o]) : [],
  );
  const envelopeOf = new Map(rows.map((r) => [r.id, r.envelopeId]));
  const own = ownIdentity(ctx.db, ctx.node)?.agentId ?? null;
  return {
    ...conversationView(row, peersOf(ctx, [row]).get(row.peerPrincipal) ?? null),
    messages: rows.filter((r) => r.status !== "retracted").map((r) => messageView(r, own, deliveries.get(r.id) ?? null, r.inReplyTo ? (envelopeOf.get(r.inReplyTo) ?? null) : null)),
  };
}
