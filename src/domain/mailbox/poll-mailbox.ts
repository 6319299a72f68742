import { eq } from "drizzle-orm";
import { mailboxGrants } from "../../db/schema/index.ts";
import type { Ctx } from "../context.ts";
import { listMailboxItems, type DrainedItem } from "./internal/list-mailbox-items.ts";

/**
 * The long-poll's second look (drain-mailbox-items.ts authenticated the drain; the route waited for
 * an item to arrive): the oldest items, none if the mailbox was revoked in the meantime.
 */
export function pollMailbox(ctx: Ctx, input: { grantId: string; limit: number }): DrainedItem[] {
  const grant = ctx.db.select({ revokedAt: mailboxGrants.revokedAt }).from(mailboxGrants).where(eq(mailboxGrants.id, input.grantId)).get();
  if (!grant || grant.revokedAt !== null) return [];
  return listMailboxItems(ctx.db, input.grantId, input.limit);
}
