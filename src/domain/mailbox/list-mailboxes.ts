import { asc } from "drizzle-orm";
import { mailboxGrants } from "../../db/schema/index.ts";
import type { Ctx } from "../context.ts";
import { requireOwner } from "../internal/actors.ts";
import { mailboxView, type MailboxView } from "./internal/mailbox-view.ts";

/** The mailboxes this node keeps for other agents, revoked ones included, oldest first. */
export function listMailboxes(ctx: Ctx): { items: MailboxView[] } {
  requireOwner(ctx, "lists mailboxes");
  const rows = ctx.db.select().from(mailboxGrants).orderBy(asc(mailboxGrants.createdAt), asc(mailboxGrants.id)).all();
  return { items: rows.map((row) => mailboxView(ctx.db, row)) };
}
