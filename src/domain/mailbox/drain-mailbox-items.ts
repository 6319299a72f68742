import { and, eq, lt } from "drizzle-orm";
import * as v from "valibot";
import { transaction } from "../../db/client.ts";
import { mailboxGrants, mailboxItems } from "../../db/schema/index.ts";
import type { With } from "../context.ts";
import { recordNonce } from "../peers/record-nonce.ts";
import { authenticateHome, type HomeRefusal } from "./internal/authenticate-home.ts";
import { listMailboxItems, type DrainedItem } from "./internal/list-mailbox-items.ts";

/** At most this many items per answer: 16 bodies of ≤ 64 KiB stay under the home's 2 MiB read. */
export const MAX_DRAIN_ITEMS = 16;
/** The longest a drain waits for a first item (the route holds the request; docs/decisions/mailbox.md). */
export const MAX_DRAIN_WAIT_MS = 20_000;

const DrainRequest = v.object({
  limit: v.optional(v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(MAX_DRAIN_ITEMS))),
  waitMs: v.optional(v.pipe(v.number(), v.integer(), v.minValue(0), v.maxValue(MAX_DRAIN_WAIT_MS))),
});

export type { DrainedItem };
export type DrainOutcome = { ok: true; grantId: string; items: DrainedItem[]; waitMs: number; limit: number } | HomeRefusal;

/**
 * The home agent collects what waits in its mailbox, oldest first (a signed `mailbox_drain`).
 * Items stay until acknowledged (ack-mailbox-items.ts): a drain that is lost on the way, or a
 * home that dies before committing, gets them again. Expired items are dropped here too.
 */
export function drainMailboxItems(ctx: With<"node">, input: { agentId: string; body: Uint8Array; authorization: string | null; path: string }): DrainOutcome {
  const auth = authenticateHome(ctx, { ...input, kind: "mailbox_drain", maxBytes: 4096 });
  if (!auth.ok) return auth;
  const parsed = v.safeParse(DrainRequest, { limit: auth.body.limit, waitMs: auth.body.waitMs });
  if (!parsed.success) return { ok: false, reason: "invalid_envelope", detail: `limit: 1-${MAX_DRAIN_ITEMS}, waitMs: 0-${MAX_DRAIN_WAIT_MS}` };
  const now = ctx.clock.now();
  const { grant } = auth;
  const limit = parsed.output.limit ?? MAX_DRAIN_ITEMS;
  return transaction(ctx.db, (tx): DrainOutcome => {
    if (!recordNonce(ctx.db, grant.principal, auth.nonce, now)) return { ok: false, reason: "nonce_replay" };
    tx.delete(mailboxItems).where(and(eq(mailboxItems.grantId, grant.id), lt(mailboxItems.acceptedAt, now - grant.retentionMs))).run();
    tx.update(mailboxGrants).set({ lastDrainAt: now }).where(eq(mailboxGrants.id, grant.id)).run();
    return { ok: true, grantId: grant.id, items: listMailboxItems(tx, grant.id, limit), waitMs: parsed.output.waitMs ?? 0, limit };
  });
}
