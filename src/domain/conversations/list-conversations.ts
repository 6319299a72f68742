import { and, desc, eq, lt, or, type SQL } from "drizzle-orm";
import * as v from "valibot";
import { conversations } from "../../db/schema/index.ts";
import type { Ctx } from "../context.ts";
import { DEFAULT_LIMIT, decodeCursor, PageQuery, pageOf, type Page } from "../internal/pagination.ts";
import { requireOwner } from "../internal/actors.ts";
import { conversationView, peersOf, type ConversationView } from "./internal/conversation-view.ts";

export const ConversationQuery = v.object({ ...PageQuery.entries });
export type ConversationQuery = v.InferOutput<typeof ConversationQuery>;

/** Threads, most recently active first. */
export function listConversations(ctx: Ctx, query: ConversationQuery): Page<ConversationView> {
  requireOwner(ctx, "reads conversations");
  const filters: SQL[] = [];
  const cursor = decodeCursor(query.cursor);
  if (cursor) filters.push(or(lt(conversations.lastMessageAt, cursor.at), and(eq(conversations.lastMessageAt, cursor.at), lt(conversations.id, cursor.id)))!);
  const limit = query.limit ?? DEFAULT_LIMIT;
  const rows = ctx.db.select().from(conversations).where(and(...filters)).orderBy(desc(conversations.lastMessageAt), desc(conversations.id)).limit(limit + 1).all();
  const peers = peersOf(ctx, rows);
  return pageOf(rows, limit, (r) => ({ at: r.lastMessageAt, id: r.id }), (r) => conversationView(r, peers.get(r.peerPrincipal) ?? null));
}
