import { and, eq, gt } from "drizzle-orm";
import * as v from "valibot";
import { transaction, type Tx } from "../../db/client.ts";
import { extensionIdempotency, messages, pendingActions } from "../../db/schema/index.ts";
import { isConfidentialIntent, parseTimestamp, recipientEncryptionKey, type RegisteredIntent } from "../../ink/index.ts";
import { tierRank, type AutonomyTier } from "../../security/extension-token.ts";
import type { ExtensionActor, With } from "../context.ts";
import { DomainError } from "../errors.ts";
import { requireExtension } from "../internal/actors.ts";
import { appendAuditEvent } from "../internal/audit-chain.ts";
import { invalidInput, notFound } from "../internal/errors.ts";
import { recordEvent } from "../internal/events.ts";
import { enqueueOutbound } from "../messages/enqueue-outbound.ts";
import { checkIntent } from "../outbox/check-intent.ts";
import { resolveRecipient } from "../peers/resolve-recipient.ts";
import { savePeerCard } from "../peers/save-peer-card.ts";
import { getPolicy } from "../policy/get-policy.ts";
import type { AutonomyLevel } from "../policy/owner-policy.ts";
import { agentSigner } from "./internal/agent-signer.ts";
import { findInstallation, manifestOf } from "./internal/installation-row.ts";
import { INTENT_TIERS } from "./internal/vocabulary.ts";
import { findVisibleContact } from "./internal/visible-contacts.ts";

export const ExtIntentInput = v.strictObject({
  to: v.pipe(v.string(), v.minLength(1), v.maxLength(512), v.description("A contact in a granted layer: its contactId or agentId")),
  intent: v.pipe(v.string(), v.minLength(1), v.maxLength(64), v.description("One of the manifest's intents[]")),
  payload: v.pipe(v.record(v.string(), v.unknown()), v.description("The intent's payload (INK's strict schema)")),
  correlationId: v.optional(v.pipe(v.string(), v.minLength(1), v.maxLength(256))),
  expiresAt: v.optional(v.pipe(v.string(), v.maxLength(64), v.description("RFC 3339"))),
});
export type ExtIntentInput = v.InferOutput<typeof ExtIntentInput>;

export type ExtIntentResult =
  | { status: "queued"; intentId: string; correlationId: string; tier: AutonomyTier }
  | { status: "pending_approval"; approvalId: string; intentId: string; correlationId: string; tier: AutonomyTier };

/** The highest tier the owner's autonomy policy lets an extension send on its own (docs/decisions/extensions.md). */
const POLICY_CEILING: Record<AutonomyLevel, AutonomyTier | null> = { none: null, draft_only: null, auto_respond: "transactional", full: "personal" };
/** Answers kept for a repeated Idempotency-Key (EXTENSIONS §5.2: the SDK retries with it). */
export const IDEMPOTENCY_MS = 24 * 3600_000;

/**
 * POST /ext/v1/intents (intents:send): an intent the manifest declares (403
 * intent_not_declared), to a contact in a granted layer (404 otherwise, as a missing one). Its
 * tier (vocabulary.ts) above the token's maxAutonomyTier or the owner's autonomy policy holds it
 * as a pending action the owner approves through /api/svc/pending (202 pending_approval);
 * otherwise it is queued in the outbox. Either way the envelope carries `provenance` naming the
 * extension (INK §2), and the installation's audit chain records it. A repeated Idempotency-Key
 * answers the first answer for 24 h; the same key with another body is 422.
 */
export async function sendExtIntent(ctx: With<"node" | "vault" | "peers" | "wake">, input: ExtIntentInput, idempotency: { key: string; bodyHash: string } | null): Promise<ExtIntentResult> {
  const actor = requireExtension(ctx, "intents:send");
  const now = ctx.clock.now();
  if (idempotency) {
    const replay = findIdempotent(ctx, actor, idempotency, now);
    if (replay) return replay;
  }
  const row = findInstallation(ctx.db, actor.installationId)!;
  if (!(manifestOf(row).intents ?? []).includes(input.intent as RegisteredIntent)) {
    throw new DomainError("forbidden", `the manifest does not declare ${input.intent.slice(0, 64)}`, { reason: "intent_not_declared" });
  }
  checkIntent(input.intent, input.payload);
  const contact = findVisibleContact(ctx.db, actor.layers, input.to);
  if (!contact) throw notFound("contact");
  // A contact the extension can see (GET /ext/v1/connections/:id answers it) but that has no agent,
  // e.g. one imported from LinkedIn: 404 would tell the client it is gone or out of its grant.
  if (!contact.agentId) throw new DomainError("conflict", "this contact has no agent to send to (an imported contact): only contacts with an agentId receive intents", { reason: "no_agent" });
  let expiresAt: number | null = null;
  if (input.expiresAt !== undefined) {
    expiresAt = parseTimestamp(input.expiresAt);
    if (expiresAt === null || expiresAt <= now) throw invalidInput("expiresAt: an RFC 3339 time in the future");
  }
  const recipient = await resolveRecipient(ctx, { to: contact.agentId });
  if (isConfidentialIntent(input.intent, []) && recipientEncryptionKey(recipient.card, now) === null) {
    throw new DomainError("conflict", `${input.intent} must travel encrypted and this contact publishes no encryption key`);
  }
  const tier = INTENT_TIERS[input.intent as RegisteredIntent];
  const ceiling = POLICY_CEILING[getPolicy(ctx.db).maxAutonomyLevel];
  const hold = tierRank(tier) > tierRank(actor.maxAutonomyTier) || ceiling === null || tierRank(tier) > tierRank(ceiling);
  const signer = agentSigner(ctx);
  const result = transaction(ctx.db, (tx): ExtIntentResult => {
    if (recipient.learned) savePeerCard(tx, recipient.learned, now);
    const queued = enqueueOutbound(
      tx,
      ctx.ids,
      {
        peerPrincipal: recipient.principal,
        peerAgentId: recipient.agentId,
        intent: input.intent,
        payload: input.payload,
        expiresAt,
        hold,
        provenance: { origin: "agent_autonomous", extensionId: actor.extensionId, installationId: actor.installationId },
        ...(input.correlationId !== undefined ? { correlationId: input.correlationId } : {}),
      },
      now,
    );
    let answer: ExtIntentResult = { status: "queued", intentId: queued.envelopeId, correlationId: queued.correlationId, tier };
    if (hold) {
      const approvalId = ctx.ids.next();
      const reason = `${actor.extensionId} wants to send ${input.intent} (${tier}) to ${contact.displayName ?? contact.agentId}: above ${tierRank(tier) > tierRank(actor.maxAutonomyTier) ? "its autonomy tier" : "your autonomy policy"}`;
      tx.insert(pendingActions).values({ id: approvalId, kind: "outbound_intent", status: "pending", messageId: queued.messageId, connectionId: contact.id, reason, actionJson: JSON.stringify({ installationId: actor.installationId, extensionId: actor.extensionId, tier }), createdAt: now }).run();
      tx.update(messages).set({ pendingActionId: approvalId }).where(eq(messages.id, queued.messageId)).run();
      recordEvent(tx, "approval.requested", now, { subjectId: approvalId, peerPrincipal: recipient.principal, kind: "outbound_intent", installationId: actor.installationId });
      answer = { status: "pending_approval", approvalId, intentId: queued.envelopeId, correlationId: queued.correlationId, tier };
    }
    appendAuditEvent(tx, actor.installationId, signer, ctx.ids.next(), now, {
      eventType: hold ? "message.queued" : "message.sent",
      messageId: queued.envelopeId,
      correlationId: queued.correlationId,
      counterpartyId: recipient.agentId,
      data: { transport: "extension_api", intent: input.intent, tier, status: answer.status },
    });
    if (idempotency) storeIdempotent(tx, actor, idempotency, answer, now);
    return answer;
  });
  if (!hold) ctx.wake.outbox();
  return result;
}

function findIdempotent(ctx: With<"node">, actor: ExtensionActor, key: { key: string; bodyHash: string }, now: number): ExtIntentResult | null {
  const row = ctx.db
    .select()
    .from(extensionIdempotency)
    .where(and(eq(extensionIdempotency.installationId, actor.installationId), eq(extensionIdempotency.key, key.key), gt(extensionIdempotency.createdAt, now - IDEMPOTENCY_MS)))
    .get();
  if (!row) return null;
  if (row.requestHash !== key.bodyHash) throw new DomainError("unprocessable", "this Idempotency-Key was used with another body", { reason: "idempotency_key_reused" });
  return JSON.parse(row.responseJson) as ExtIntentResult;
}

function storeIdempotent(tx: Tx, actor: ExtensionActor, key: { key: string; bodyHash: string }, answer: ExtIntentResult, now: number): void {
  tx.insert(extensionIdempotency)
    .values({ installationId: actor.installationId, key: key.key, requestHash: key.bodyHash, status: answer.status === "queued" ? 200 : 202, responseJson: JSON.stringify(answer), createdAt: now })
    .onConflictDoUpdate({ target: [extensionIdempotency.installationId, extensionIdempotency.key], set: { requestHash: key.bodyHash, responseJson: JSON.stringify(answer), createdAt: now } })
    .run();
}
