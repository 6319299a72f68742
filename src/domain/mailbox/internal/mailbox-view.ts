import { count, eq, sum } from "drizzle-orm";
import type { Db } from "../../../db/client.ts";
import { mailboxGrants, mailboxItems } from "../../../db/schema/index.ts";
import { iso } from "../../internal/iso.ts";

export type GrantRow = typeof mailboxGrants.$inferSelect;

/** A mailbox as its granting owner sees it: quotas, what it holds now, and when the home last came by. */
export interface MailboxView {
  id: string;
  agentId: string;
  status: "active" | "revoked";
  maxMessages: number;
  maxBytes: number;
  retentionHours: number;
  messages: number;
  bytes: number;
  cardPublishedAt: string | null;
  lastDrainAt: string | null;
  createdAt: string;
  revokedAt: string | null;
}

export function mailboxView(db: Pick<Db, "select">, row: GrantRow): MailboxView {
  const usage = mailboxUsage(db, row.id);
  return {
    id: row.id,
    agentId: row.agentId,
    status: row.revokedAt === null ? "active" : "revoked",
    maxMessages: row.maxMessages,
    maxBytes: row.maxBytes,
    retentionHours: row.retentionMs / 3_600_000,
    messages: usage.messages,
    bytes: usage.bytes,
    cardPublishedAt: iso(row.cardPublishedAt),
    lastDrainAt: iso(row.lastDrainAt),
    createdAt: iso(row.createdAt)!,
    revokedAt: iso(row.revokedAt),
  };
}

/** Messages and bytes a mailbox holds (the quotas' measure). */
export function mailboxUsage(db: Pick<Db, "select">, grantId: string): { messages: number; bytes: number } {
  const row = db.select({ n: count(), b: sum(mailboxItems.bytes) }).from(mailboxItems).where(eq(mailboxItems.grantId, grantId)).get();
  return { messages: row?.n ?? 0, bytes: Number(row?.b ?? 0) };
}
