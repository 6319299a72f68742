import { and, eq, sql } from "drizzle-orm";
import type { Tx } from "../../db/client.ts";
import { connections, conversations, messages } from "../../db/schema/index.ts";
import type { Ids } from "../context.ts";

export type MessageRow = typeof messages.$inferSelect;
export type NewMessage = typeof messages.$inferInsert;

/** Finds or opens the thread of (peer, correlationId) and counts the new message in it. */
export function touchConversation(tx: Tx, ids: Ids, input: { peerPrincipal: string; correlationId: string; subject: string | null; at: number }): string {
  const existing = tx
    .select({ id: conversations.id })
    .from(conversations)
    .where(and(eq(conversations.peerPrincipal, input.peerPrincipal), eq(conversations.correlationId, input.correlationId)))
    .get();
  if (existing) {
    tx.update(conversations)
      .set({ messageCount: sql`${conversations.messageCount} + 1`, lastMessageAt: sql`max(${conversations.lastMessageAt}, ${input.at})` })
      .where(eq(conversations.id, existing.id))
      .run();
    return existing.id;
  }
  const id = `cnv_${ids.next()}`;
  tx.insert(conversations)
    .values({ id, peerPrincipal: input.peerPrincipal, correlationId: input.correlationId, subject: input.subject, messageCount: 1, lastMessageAt: input.at, createdAt: input.at })
    .run();
  return id;
}

export function touchConnection(tx: Tx, principal: string, at: number): void {
  tx.update(connections).set({ lastMessageAt: at }).where(eq(connections.principal, principal)).run();
}

/** Lower-cased text a simple inbox search matches against: intent, peer and every string in the payload. */
export function searchTextOf(intent: string, peer: string, payload: unknown): string {
  const parts: string[] = [intent, peer];
  const walk = (v: unknown, depth: number) => {
    if (depth > 6) return;
    if (typeof v === "string") parts.push(v);
    else if (Array.isArray(v)) v.forEach((x) => walk(x, depth + 1));
    else if (v && typeof v === "object") Object.values(v).forEach((x) => walk(x, depth + 1));
  };
  walk(payload, 0);
  return parts.join("\n").toLowerCase().slice(0, 20_000);
}

/** A short subject for a new thread from the first message's payload. */
export function subjectOf(intent: string, payload: Record<string, unknown>): string {
  for (const key of ["topic", "title", "question", "purpose", "reason", "context", "message", "note"]) {
    const v = payload[key];
    if (typeof v === "string" && v.trim()) return v.trim().slice(0, 140);
  }
  return intent;
}
