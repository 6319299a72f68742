import { eq } from "drizzle-orm";
import * as v from "valibot";
import { transaction } from "../../db/client.ts";
import { mailboxGrants } from "../../db/schema/index.ts";
import { agentIdPublicKey, normalizePrincipal } from "../../ink/index.ts";
import type { Ctx } from "../context.ts";
import { requireOwner } from "../internal/actors.ts";
import { conflict, invalidInput } from "../internal/errors.ts";
import { mailboxView, type MailboxView } from "./internal/mailbox-view.ts";

/** Defaults and ceilings of a mailbox's quotas (docs/decisions/mailbox.md). */
export const MAILBOX_DEFAULTS = { maxMessages: 1_000, maxBytes: 16 * 1024 * 1024, retentionHours: 7 * 24 };
export const MAILBOX_CEILINGS = { maxMessages: 100_000, maxBytes: 1024 * 1024 * 1024, retentionHours: 30 * 24 };

export const GrantMailboxInput = v.strictObject({
  agentId: v.pipe(v.string("agentId: a string"), v.minLength(1, "agentId: must not be empty"), v.maxLength(256, "agentId: at most 256 characters"), v.description("The home node's agent id (key-derived: svc:z…, tulpa:z…)")),
  maxMessages: v.optional(v.pipe(v.number("maxMessages: a number"), v.integer("maxMessages: an integer"), v.minValue(1, "maxMessages: at least 1"), v.maxValue(MAILBOX_CEILINGS.maxMessages, `maxMessages: at most ${MAILBOX_CEILINGS.maxMessages}`))),
  maxBytes: v.optional(v.pipe(v.number("maxBytes: a number"), v.integer("maxBytes: an integer"), v.minValue(65_536, "maxBytes: at least 65536"), v.maxValue(MAILBOX_CEILINGS.maxBytes, `maxBytes: at most ${MAILBOX_CEILINGS.maxBytes}`))),
  retentionHours: v.optional(v.pipe(v.number("retentionHours: a number"), v.integer("retentionHours: an integer"), v.minValue(1, "retentionHours: at least 1"), v.maxValue(MAILBOX_CEILINGS.retentionHours, `retentionHours: at most ${MAILBOX_CEILINGS.retentionHours}`))),
});
export type GrantMailboxInput = v.InferOutput<typeof GrantMailboxInput>;

/**
 * The owner keeps a mailbox for another agent (docs/decisions/mailbox.md): only key-derived ids,
 * whose genesis key authenticates the home node before it has published a card here. Granting a
 * revoked mailbox again opens it anew (empty, no card) with the new quotas.
 */
export function grantMailbox(ctx: Ctx, input: GrantMailboxInput): MailboxView {
  requireOwner(ctx, "grants mailboxes");
  if (agentIdPublicKey(input.agentId) === null) throw invalidInput("agentId: a key-derived agent id (svc:z…, tulpa:z… or ink:z…)");
  const principal = normalizePrincipal(input.agentId);
  if (!principal.ok) throw invalidInput("agentId: not an agent id");
  const now = ctx.clock.now();
  const quotas = {
    maxMessages: input.maxMessages ?? MAILBOX_DEFAULTS.maxMessages,
    maxBytes: input.maxBytes ?? MAILBOX_DEFAULTS.maxBytes,
    retentionMs: (input.retentionHours ?? MAILBOX_DEFAULTS.retentionHours) * 3_600_000,
  };
  return transaction(ctx.db, (tx) => {
    const existing = tx.select().from(mailboxGrants).where(eq(mailboxGrants.principal, principal.principal)).get();
    if (existing && existing.revokedAt === null) throw conflict("this agent already has a mailbox here (revoke it first to change its quotas)");
    const fresh = { ...quotas, agentId: input.agentId, principal: principal.principal, createdAt: now, revokedAt: null, cardJson: null, cardKeySetVersion: null, cardPublishedAt: null, lastDrainAt: null };
    if (existing) tx.update(mailboxGrants).set(fresh).where(eq(mailboxGrants.id, existing.id)).run();
    else tx.insert(mailboxGrants).values({ id: `mbx_${ctx.ids.next()}`, ...fresh }).run();
    return mailboxView(tx, tx.select().from(mailboxGrants).where(eq(mailboxGrants.principal, principal.principal)).get()!);
  });
}
