import { eq } from "drizzle-orm";
import { transaction } from "../../db/client.ts";
import { mailboxGrants, mailboxItems } from "../../db/schema/index.ts";
import type { Ctx } from "../context.ts";
import { requireOwner } from "../internal/actors.ts";
import { notFound } from "../internal/errors.ts";
import { findGrant } from "./internal/find-grant.ts";
import { mailboxView, type MailboxView } from "./internal/mailbox-view.ts";

/**
 * The owner closes a mailbox: intake, drains and the card it served stop at once, and what it held
 * is deleted (the owner no longer keeps anything for that agent). Revoking twice is a no-op.
 */
export function revokeMailbox(ctx: Ctx, agentId: string): MailboxView {
  requireOwner(ctx, "revokes mailboxes");
  const now = ctx.clock.now();
  return transaction(ctx.db, (tx) => {
    const grant = findGrant(tx, agentId, { includeRevoked: true });
    if (!grant) throw notFound("mailbox");
    if (grant.revokedAt === null) {
      tx.update(mailboxGrants).set({ revokedAt: now, cardJson: null, cardKeySetVersion: null }).where(eq(mailboxGrants.id, grant.id)).run();
      tx.delete(mailboxItems).where(eq(mailboxItems.grantId, grant.id)).run();
    }
    return mailboxView(tx, tx.select().from(mailboxGrants).where(eq(mailboxGrants.id, grant.id)).get()!);
  });
}
