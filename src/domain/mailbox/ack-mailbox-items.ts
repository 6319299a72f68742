import { and, eq, inArray } from "drizzle-orm";
import * as v from "valibot";
import { transaction } from "../../db/client.ts";
import { mailboxItems } from "../../db/schema/index.ts";
import type { With } from "../context.ts";
import { recordNonce } from "../peers/record-nonce.ts";
import { authenticateHome, type HomeRefusal } from "./internal/authenticate-home.ts";

const AckRequest = v.array(v.pipe(v.string(), v.maxLength(64)), "ids: an array of item ids");

export type AckOutcome = { ok: true; deleted: number } | HomeRefusal;

/**
 * The home agent acknowledges items it has committed (a signed `mailbox_ack` of ≤ 64 ids); they
 * are deleted. Ids that are gone already (an ack retried after a lost answer) are no error.
 */
export function ackMailboxItems(ctx: With<"node">, input: { agentId: string; body: Uint8Array; authorization: string | null; path: string }): AckOutcome {
  const auth = authenticateHome(ctx, { ...input, kind: "mailbox_ack", maxBytes: 8192 });
  if (!auth.ok) return auth;
  const ids = v.safeParse(v.pipe(AckRequest, v.minLength(1), v.maxLength(64)), auth.body.ids);
  if (!ids.success) return { ok: false, reason: "invalid_envelope", detail: "ids: 1-64 item ids" };
  const now = ctx.clock.now();
  return transaction(ctx.db, (tx): AckOutcome => {
    if (!recordNonce(ctx.db, auth.grant.principal, auth.nonce, now)) return { ok: false, reason: "nonce_replay" };
    const deleted = tx.delete(mailboxItems).where(and(eq(mailboxItems.grantId, auth.grant.id), inArray(mailboxItems.id, ids.output))).returning({ id: mailboxItems.id }).all();
    return { ok: true, deleted: deleted.length };
  });
}
