import { eq } from "drizzle-orm";
import { mailboxUses } from "../../db/schema/index.ts";
import type { With } from "../context.ts";
import { cachedOwnIdentity } from "../agent/cached-own-identity.ts";
import { requireOwner } from "../internal/actors.ts";
import { iso } from "../internal/iso.ts";

/** The mailbox this (home) node is reached through, as its owner sees it (docs/decisions/mailbox.md). */
export interface MailboxUseView {
  /** KITH_MAILBOX_URL; null when the node is reached at its own public URL. */
  url: string | null;
  endpoint: string | null;
  cardUrl: string | null;
  cardPublishedAt: string | null;
  lastDrainAt: string | null;
  lastError: string | null;
  /** Requests collected and committed, and refused by the receiver, since the mailbox was first used. */
  received: number;
  refused: number;
}

export function getMailboxUse(ctx: With<"node">): MailboxUseView {
  requireOwner(ctx, "reads the mailbox state");
  const url = ctx.node.mailboxUrl ?? null;
  const own = cachedOwnIdentity(ctx.db, ctx.node);
  const row = url ? ctx.db.select().from(mailboxUses).where(eq(mailboxUses.url, url)).get() : undefined;
  return {
    url,
    endpoint: url && own ? `${url}/ink/v1/${own.agentId}/intent` : null,
    cardUrl: url && own ? own.cardUrl : null,
    cardPublishedAt: iso(row?.cardPublishedAt),
    lastDrainAt: iso(row?.lastDrainAt),
    lastError: row?.lastError ?? null,
    received: row?.drained ?? 0,
    refused: row?.refused ?? 0,
  };
}
