import { and, eq, lt } from "drizzle-orm";
import { transaction } from "../../db/client.ts";
import { nonceSeen } from "../../db/nonce-index.ts";
import { mailboxItems } from "../../db/schema/index.ts";
import { inspectInbound, REGISTERED_INTENTS, verifyRelayTransport, type InboundPolicy, type InboundReason } from "../../ink/index.ts";
import { nativeStrictVerifier } from "../../security/ed25519-native.ts";
import type { With } from "../context.ts";
import { recordNonce } from "../peers/record-nonce.ts";
import { resolveSenderKeysFor } from "../peers/resolve-sender-keys-for.ts";
import { savePeerCard } from "../peers/save-peer-card.ts";
import { findGrant } from "./internal/find-grant.ts";
import { mailboxEndpointOf } from "./internal/mailbox-paths.ts";
import { mailboxNonceScope } from "./internal/mailbox-nonce-scope.ts";
import { mailboxUsage } from "./internal/mailbox-view.ts";

/** Per-mailbox and per-sender rates on top of the per-address limit of the route. */
export const MAILBOX_RATES = { perSenderHour: 60, perMailboxHour: 600 };

export type MailboxIntakeReason = InboundReason | "unknown_recipient" | "nonce_replay" | "rate_limited" | "mailbox_full";
export type MailboxIntakeOutcome = { ok: true; itemId: string; grantId: string } | { ok: false; reason: MailboxIntakeReason; detail?: string; retryAfterSeconds?: number };

/**
 * A peer POSTs an intent to the endpoint a home agent's card names on this node
 * (docs/decisions/mailbox.md). Accepted only when the home's own receiver would get past its gate:
 * the receiver's phase 1 with the home's id and published path (raw gate, envelope or sealed
 * shape, disposition, recipient, header, freshness, nonce grammar), the transport signature under
 * the sender's keys, a nonce unique within the mailbox; then the rates and quotas. What is stored
 * is the exact bytes and Authorization header; nothing is decrypted (the node has no key).
 */
export async function acceptMailboxMessage(
  ctx: With<"node" | "vault" | "peers" | "limiter" | "writes">,
  input: { agentId: string; body: Uint8Array; authorization: string | null; cardHint: string | null },
): Promise<MailboxIntakeOutcome> {
  const now = ctx.clock.now();
  const grant = findGrant(ctx.db, input.agentId);
  if (!grant) return { ok: false, reason: "unknown_recipient" };
  const endpoint = mailboxEndpointOf(ctx.node.publicUrl, grant.agentId);
  const policy: InboundPolicy = { ownAgentId: grant.agentId, endpointPath: endpoint.path, wordmark: ctx.node.wordmark, supportedIntents: REGISTERED_INTENTS, acceptsSealed: true };
  const pending = inspectInbound({ body: input.body, authorization: input.authorization, now }, policy);
  if (!pending.ok) return pending;

  const scope = mailboxNonceScope(grant.id, pending.principal);
  // A replay resolves keys from what is stored only: it never makes the node fetch anything.
  const replayed = nonceSeen(ctx.db, scope, pending.nonce);
  const resolved = await resolveSenderKeysFor(ctx, { from: pending.from, principal: pending.principal, keyIdHint: pending.keyIdHint, network: !replayed });
  const verified = verifyRelayTransport(pending, { keys: resolved.keys, verifier: nativeStrictVerifier });
  const learned = resolved.learned;
  if (!verified.ok) {
    if (learned) transaction(ctx.db, (tx) => savePeerCard(tx, learned, now));
    return verified;
  }

  const id = `mbi_${ctx.ids.next()}`;
  return ctx.writes.run((tx): MailboxIntakeOutcome => {
    if (learned) savePeerCard(tx, learned, now);
    // INK §8, §9 step 11: the nonce first (a replay spends no budget), then the rates, then quotas.
    if (!recordNonce(ctx.db, scope, pending.nonce, now)) return { ok: false, reason: "nonce_replay" };
    for (const [bucket, key, limit] of [["mailbox-sender", scope, MAILBOX_RATES.perSenderHour], ["mailbox-in", grant.id, MAILBOX_RATES.perMailboxHour]] as const) {
      const rate = ctx.limiter.consume(bucket, key, { limit, windowMs: 3_600_000 }, now);
      if (!rate.allowed) return { ok: false, reason: "rate_limited", retryAfterSeconds: rate.retryAfterSeconds };
    }
    tx.delete(mailboxItems).where(and(eq(mailboxItems.grantId, grant.id), lt(mailboxItems.acceptedAt, now - grant.retentionMs))).run();
    const usage = mailboxUsage(tx, grant.id);
    if (usage.messages + 1 > grant.maxMessages || usage.bytes + input.body.length > grant.maxBytes) {
      return { ok: false, reason: "mailbox_full", detail: "the recipient's mailbox is full until its agent collects it; retry later" };
    }
    tx.insert(mailboxItems).values({ id, grantId: grant.id, senderPrincipal: pending.principal, acceptedAt: now, authorization: input.authorization ?? "", cardHint: input.cardHint, body: Buffer.from(input.body), bytes: input.body.length }).run();
    return { ok: true, itemId: id, grantId: grant.id };
  });
}
