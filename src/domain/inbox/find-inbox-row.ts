import { and, asc, eq, or } from "drizzle-orm";
import { messages } from "../../db/schema/index.ts";
import type { Ctx } from "../context.ts";
import type { MessageRow } from "../internal/message-rows.ts";

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
