import { eq } from "drizzle-orm";
import * as v from "valibot";
import { transaction, type Tx } from "../../db/client.ts";
import { connections } from "../../db/schema/index.ts";
import { isConfidentialIntent, normalizePrincipal, parseTimestamp, recipientEncryptionKey } from "../../ink/index.ts";
import type { Ctx, With } from "../context.ts";
import { DomainError } from "../errors.ts";
import { invalidInput } from "../internal/errors.ts";
import { ownIdentity } from "../agent/own-identity.ts";
import { savePeerCard } from "../peers/save-peer-card.ts";
import { resolveRecipient, type Recipient } from "../peers/resolve-recipient.ts";
import { enqueueOutbound, type OutboundDraft } from "../messages/enqueue-outbound.ts";
import { requireOwner } from "../internal/actors.ts";
import { checkIntent } from "./check-intent.ts";
import { principalOf } from "../internal/principal-of.ts";

export const SendIntentInput = v.strictObject({
  to: v.optional(v.pipe(v.string(), v.minLength(1), v.maxLength(512), v.description("The recipient's agent id"))),
  intent: v.pipe(v.string(), v.minLength(1), v.maxLength(253), v.description("One of the 15 INK intents")),
  payload: v.pipe(v.record(v.string(), v.unknown()), v.description("The intent's payload (strict INK schema)")),
  cardUrl: v.optional(v.pipe(v.string(), v.maxLength(2048), v.description("The recipient's Agent Card URL; required when `to` is not yet a known contact"))),
  correlationId: v.optional(v.pipe(v.string(), v.minLength(1), v.maxLength(256), v.description("Thread id; a new thread when absent"))),
  expiresAt: v.optional(v.pipe(v.string(), v.maxLength(64), v.description("RFC 3339; after this the recipient may ignore the message"))),
});
export type SendIntentInput = v.InferOutput<typeof SendIntentInput>;

export interface SendResult {
  /** The envelope id exactly as sent on the wire. */
  id: string;
  correlationId: string;
  status: "queued";
  messageId: string;
  conversationId: string;
  /** The recipient's canonical principal. */
  peerPrincipal: string;
}

/**
 * The owner sends an intent: validated against INK's strict payload schema, the recipient's card
 * fetched (new contacts) or reused, confidential intents refused when the peer publishes no
 * encryption key, then queued in one transaction with its thread and contact. Delivery (signing,
 * sealing, retries) is the outbox worker's job.
 */
export async function sendIntent(ctx: With<"node" | "vault" | "peers" | "wake">, input: SendIntentInput, options: { inReplyTo?: string } = {}): Promise<SendResult> {
  requireOwner(ctx, "sends intents");
  const own = ownIdentity(ctx.db, ctx.node);
  if (!own) throw new DomainError("conflict", "this node has no agent yet (POST /api/svc creates it)");
  checkIntent(input.intent, input.payload);
  let expiresAt: number | null = null;
  if (input.expiresAt !== undefined) {
    expiresAt = parseTimestamp(input.expiresAt);
    if (expiresAt === null) throw invalidInput("expiresAt: not an RFC 3339 timestamp");
    if (expiresAt <= ctx.clock.now()) throw invalidInput("expiresAt is in the past");
  }
  const recipient = await resolveRecipient(ctx, input);
  checkRecipient(recipient, input.to, own.agentId, input.intent, ctx.clock.now());

  const now = ctx.clock.now();
  const queued = transaction(ctx.db, (tx) => {
    if (recipient.learned) savePeerCard(tx, recipient.learned, now);
    ensureContact(tx, ctx, recipient, input.intent, now);
    const draft: OutboundDraft = { peerPrincipal: recipient.principal, peerAgentId: recipient.agentId, intent: input.intent, payload: input.payload, expiresAt };
    if (input.correlationId !== undefined) draft.correlationId = input.correlationId;
    if (options.inReplyTo !== undefined) draft.inReplyTo = options.inReplyTo;
    return enqueueOutbound(tx, ctx.ids, draft, now);
  });
  ctx.wake.outbox();
  return { id: queued.envelopeId, correlationId: queued.correlationId, status: "queued", messageId: queued.messageId, conversationId: queued.conversationId, peerPrincipal: recipient.principal };
}

function checkRecipient(r: Recipient, to: string | undefined, ownAgentId: string, intent: string, now: number): void {
  if (to !== undefined) {
    if (principalOf(to) !== r.principal) throw invalidInput("the card at cardUrl belongs to another agent than `to`");
  }
  const self = normalizePrincipal(ownAgentId);
  if (self.ok && self.principal === r.principal) throw invalidInput("that is this node's own agent");
  if (isConfidentialIntent(intent, []) && recipientEncryptionKey(r.card, now) === null) {
    throw new DomainError("conflict", `${intent} must travel encrypted and this agent publishes no encryption key`);
  }
}

/** Sending to someone makes them a contact; a connection_request makes it a request. */
function ensureContact(tx: Tx, ctx: Ctx, r: Recipient, intent: string, now: number): void {
  const existing = tx.select().from(connections).where(eq(connections.principal, r.principal)).get();
  const requesting = intent === "connection_request";
  const card = { agentId: r.agentId, handle: r.card.handle ?? null, displayName: r.card.displayName ?? null, ...(r.learned?.cardUrl ? { cardUrl: r.learned.cardUrl } : {}) };
  if (!existing) {
    tx.insert(connections)
      .values({ id: `con_${ctx.ids.next()}`, principal: r.principal, ...card, status: requesting ? "requested" : "contact", initiatedBy: "us", createdAt: now, updatedAt: now })
      .run();
    return;
  }
  const nextStatus = requesting && ["contact", "declined", "disconnected"].includes(existing.status) ? "requested" : existing.status;
  tx.update(connections).set({ ...card, status: nextStatus, updatedAt: now }).where(eq(connections.id, existing.id)).run();
}
