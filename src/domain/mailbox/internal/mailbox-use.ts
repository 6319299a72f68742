import { sql } from "drizzle-orm";
import type { Db, Tx } from "../../../db/client.ts";
import { mailboxUses } from "../../../db/schema/index.ts";

export type MailboxUseRow = typeof mailboxUses.$inferSelect;
type Update = Partial<Omit<MailboxUseRow, "url" | "drained" | "refused">> & { drained?: number; refused?: number };

/** Records how this home node's use of its mailbox went (counters add up; other fields replace). */
export function recordMailboxUse(db: Db | Tx, url: string, update: Update): void {
  const { drained = 0, refused = 0, ...fields } = update;
  db.insert(mailboxUses)
    .values({ url, ...fields, drained, refused })
    .onConflictDoUpdate({ target: mailboxUses.url, set: { ...fields, drained: sql`${mailboxUses.drained} + ${drained}`, refused: sql`${mailboxUses.refused} + ${refused}` } })
    .run();
}
