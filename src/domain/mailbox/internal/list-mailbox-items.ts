import { and, asc, eq, gt, or } from "drizzle-orm";
import type { Db } from "../../../db/client.ts";
import { mailboxItems } from "../../../db/schema/index.ts";

export interface DrainedItem {
  id: string;
  /** When the mailbox accepted it (unix ms): the instant the home judges its freshness at. */
  acceptedAt: number;
  authorization: string;
  cardHint: string | null;
  /** The exact request body, base64url. */
  body: string;
}
/** The oldest items of a mailbox (the long-poll reads again after a wake-up with this). */
export function listMailboxItems(db: Pick<Db, "select">, grantId: string, limit: number, after?: { acceptedAt: number; id: string }): DrainedItem[] {
  const cursor = after ? or(gt(mailboxItems.acceptedAt, after.acceptedAt), and(eq(mailboxItems.acceptedAt, after.acceptedAt), gt(mailboxItems.id, after.id))) : undefined;
  return db
    .select()
    .from(mailboxItems)
    .where(and(eq(mailboxItems.grantId, grantId), cursor))
    .orderBy(asc(mailboxItems.acceptedAt), asc(mailboxItems.id))
    .limit(limit)
    .all()
    .map((row) => ({ id: row.id, acceptedAt: row.acceptedAt, authorization: row.authorization, cardHint: row.cardHint, body: Buffer.from(row.body).toString("base64url") }));
}
