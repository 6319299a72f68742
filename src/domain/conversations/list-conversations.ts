import { and, asc, desc, eq, inArray, lt, or, type SQL } from "drizzle-orm";
import * as v from "valibot";
import { connections, conversations, messages, outbox } from "../../db/schema/index.ts";
import type { Ctx, With } from "../context.ts";
import { notFound } from "../errors.ts";
import { ownIdentity } from "../agent/own-identity.ts";
import { messageView, type MessageView } from "../messages/message-view.ts";
import { DEFAULT_LIMIT, decodeCursor, PageQuery, pageOf, type Page } from "../internal/pagination.ts";
import { requireOwner } from "../internal/actors.ts";

export const ConversationQuery = v.object({ ...PageQuery.entries });
export type ConversationQuery = v.InferOutput<typeof ConversationQuery>;

export interface ConversationView {
  id: string;
  correlationId: string;
  subject: string | null;
  peer: { agentId: string | null; handle: string | null; displayName: string | null; connectionId: string | null; principal: string };
  messageCount: number;
  lastMessageAt: string;
  createdAt: string;
}

export interface ConversationDetail extends ConversationView {
  /** Every message of the thread, oldest first; outbound ones with their delivery state. */
  messages: MessageView[];
}

type Row = typeof conversations.$inferSelect;

/** Threads, most recently active first. */
export function listConversations(ctx: Ctx, query: ConversationQuery): Page<ConversationView> {
  requireOwner(ctx, "reads conversations");
  const filters: SQL[] = [];
  const cursor = decodeCursor(query.cursor);
  if (cursor) filters.push(or(lt(conversations.lastMessageAt, cursor.at), and(eq(conversations.lastMessageAt, cursor.at), lt(conversations.id, cursor.id)))!);
  const limit = query.limit ?? DEFAULT_LIMIT;
  const rows = ctx.db.select().from(conversations).where(and(...filters)).orderBy(desc(conversations.lastMessageAt), desc(conversations.id)).limit(limit + 1).all();
  const peers = peersOf(ctx, rows);
  return pageOf(rows, limit, (r) => ({ at: r.lastMessageAt, id: r.id }), (r) => view(r, peers.get(r.peerPrincipal) ?? null));
}

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
    ...view(row, peersOf(ctx, [row]).get(row.peerPrincipal) ?? null),
    messages: rows.filter((r) => r.status !== "retracted").map((r) => messageView(r, own, deliveries.get(r.id) ?? null, r.inReplyTo ? (envelopeOf.get(r.inReplyTo) ?? null) : null)),
  };
}

function peersOf(ctx: Ctx, rows: Row[]) {
  const principals = [...new Set(rows.map((r) => r.peerPrincipal))];
  if (principals.length === 0) return new Map<string, typeof connections.$inferSelect>();
  return new Map(ctx.db.select().from(connections).where(inArray(connections.principal, principals)).all().map((c) => [c.principal!, c]));
}

function view(row: Row, peer: typeof connections.$inferSelect | null): ConversationView {
  return {
    id: row.id,
    correlationId: row.correlationId,
    subject: row.subject,
    peer: { agentId: peer?.agentId ?? null, handle: peer?.handle ?? null, displayName: peer?.displayName ?? null, connectionId: peer?.id ?? null, principal: row.peerPrincipal },
    messageCount: row.messageCount,
    lastMessageAt: new Date(row.lastMessageAt).toISOString(),
    createdAt: new Date(row.createdAt).toISOString(),
  };
}
