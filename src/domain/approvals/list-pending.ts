import { and, desc, eq, inArray, lt, or, type SQL } from "drizzle-orm";
import * as v from "valibot";
import { messages, pendingActions } from "../../db/schema/index.ts";
import type { With } from "../context.ts";
import { ownIdentity } from "../agent/own-identity.ts";
import { messageView } from "../messages/message-view.ts";
import { pendingActionView, type PendingActionView } from "./internal/pending-action-view.ts";
import { DEFAULT_LIMIT, decodeCursor, PageQuery, pageOf, type Page } from "../internal/pagination.ts";
import { requireOwner } from "../internal/actors.ts";

export const PendingQuery = v.object({
  ...PageQuery.entries,
  status: v.optional(v.picklist(["pending", "approved", "rejected", "all"], "status: one of pending, approved, rejected, all")),
});
export type PendingQuery = v.InferOutput<typeof PendingQuery>;

/** Actions awaiting the owner (by default only undecided ones), newest first, each with its message. */
export function listPending(ctx: With<"node">, query: PendingQuery): Page<PendingActionView> {
  requireOwner(ctx, "sees pending actions");
  const filters: SQL[] = [];
  const status = query.status ?? "pending";
  if (status !== "all") filters.push(eq(pendingActions.status, status));
  const cursor = decodeCursor(query.cursor);
  if (cursor) filters.push(or(lt(pendingActions.createdAt, cursor.at), and(eq(pendingActions.createdAt, cursor.at), lt(pendingActions.id, cursor.id)))!);
  const limit = query.limit ?? DEFAULT_LIMIT;
  const rows = ctx.db.select().from(pendingActions).where(and(...filters)).orderBy(desc(pendingActions.createdAt), desc(pendingActions.id)).limit(limit + 1).all();
  const ids = rows.map((r) => r.messageId).filter((x): x is string => x !== null);
  const byId = new Map(ids.length ? ctx.db.select().from(messages).where(inArray(messages.id, ids)).all().map((m) => [m.id, m]) : []);
  const own = ownIdentity(ctx.db, ctx.node)?.agentId ?? null;
  return pageOf(rows, limit, (r) => ({ at: r.createdAt, id: r.id }), (r) => {
    const m = r.messageId ? byId.get(r.messageId) : undefined;
    return pendingActionView(r, m ? messageView(m, own) : null);
  });
}

