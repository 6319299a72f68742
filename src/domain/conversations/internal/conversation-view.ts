import { inArray } from "drizzle-orm";
import { connections, type conversations } from "../../../db/schema/index.ts";
import type { Ctx } from "../../context.ts";

export interface ConversationView {
  id: string;
  correlationId: string;
  subject: string | null;
  peer: { agentId: string | null; handle: string | null; displayName: string | null; connectionId: string | null; principal: string };
  messageCount: number;
  lastMessageAt: string;
  createdAt: string;
}

type Row = typeof conversations.$inferSelect;

/** The connections of the threads' peers, by principal. */
export function peersOf(ctx: Ctx, rows: Row[]) {
  const principals = [...new Set(rows.map((r) => r.peerPrincipal))];
  if (principals.length === 0) return new Map<string, typeof connections.$inferSelect>();
  return new Map(ctx.db.select().from(connections).where(inArray(connections.principal, principals)).all().map((c) => [c.principal!, c]));
}

export function conversationView(row: Row, peer: typeof connections.$inferSelect | null): ConversationView {
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
