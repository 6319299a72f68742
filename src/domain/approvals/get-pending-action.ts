import { eq } from "drizzle-orm";
import { messages, pendingActions } from "../../db/schema/index.ts";
import type { With } from "../context.ts";
import { notFound } from "../internal/errors.ts";
import { ownIdentity } from "../agent/own-identity.ts";
import { messageView } from "../messages/message-view.ts";
import { pendingActionView, type PendingActionView } from "./internal/pending-action-view.ts";
import { requireOwner } from "../internal/actors.ts";

export function getPendingAction(ctx: With<"node">, id: string): PendingActionView {
  requireOwner(ctx, "sees pending actions");
  const row = ctx.db.select().from(pendingActions).where(eq(pendingActions.id, id)).get();
  if (!row) throw notFound("pending action");
  const m = row.messageId ? ctx.db.select().from(messages).where(eq(messages.id, row.messageId)).get() : undefined;
  return pendingActionView(row, m ? messageView(m, ownIdentity(ctx.db, ctx.node)?.agentId ?? null) : null);
}
