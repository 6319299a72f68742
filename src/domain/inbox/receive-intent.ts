import { and, eq } from "drizzle-orm";
import { transaction } from "../../db/client.ts";
import { ingestStatements } from "../../db/ingest-statements.ts";
import { readSnapshot } from "../../db/read-snapshot.ts";
import { messages } from "../../db/schema/index.ts";
import { agentIdPublicKey, parseTimestamp } from "../../ink/index.ts";
import type { Ctx, With } from "../context.ts";
import { cachedOwnIdentity } from "../agent/cached-own-identity.ts";
import { requireAgent } from "../internal/actors.ts";
import { isResponseIntent } from "../internal/response-intents.ts";
import { learnHintedCard } from "../peers/learn-hinted-card.ts";
import { type PeerCardUpdate } from "../peers/peer-cards.ts";
import { savePeerCard } from "../peers/save-peer-card.ts";
import type { PeerRefusalReason, PeerRequests } from "../peers/peer-requests.ts";
import { recordNonce } from "../peers/record-nonce.ts";
import type { AuditEntry } from "../internal/audit-chain.ts";
import { hasRelationship } from "../peers/has-relationship.ts";
import { checkForeignSender, type ForeignSenderDecision } from "../policy/check-foreign-sender.ts";
import { type OwnerPolicy } from "../policy/owner-policy.ts";
import { policyFromRow } from "../policy/policy-from-row.ts";
import { storeInbound, type StoreContext, type StoredMessage } from "./internal/store-inbound.ts";
import { recordInkEvent } from "../audit/record-ink-event.ts";
import { messageReceived, recordSignedInkEvent, signInkEventAhead } from "../internal/ink-events-ahead.ts";
import { sendReceipt } from "../receipts/send-receipt.ts";
import { findAnsweredRequest } from "./internal/find-answered-request.ts";
import { chargeSender } from "./internal/charge-sender.ts";

export interface ReceiveInput {
  /** The intent as authenticated at the edge (peers/authenticate-peer.ts). */
  request: PeerRequests["intent"];
  /** What was learned about the sender's card on the way: saved with the message. */
  learned: PeerCardUpdate | null;
  /** A card URL the sender pointed to (`Link: <url>; rel="agent-card"`), used only on first contact. */
  cardHint: string | null;
}

export type ReceiveReason =
  | PeerRefusalReason
  | "rate_limited"
  | "not_connected"
  | "message_expired"
  | "duplicate_message_id"
  | Exclude<ForeignSenderDecision["reason"], "ok_foreign_user_opt_in">;

export type ReceiveOutcome = ({ ok: true } & StoredMessage) | { ok: false; reason: ReceiveReason; detail?: string; retryAfterSeconds?: number };

/**
 * An authenticated INK intent (INK §9; the sender was verified at the edge): the node's own rules —
 * expired messages are refused, strangers may only send connection_request (foreign-sender policy)
 * — then one transaction that records the replay nonce, stores the message once per (sender, id),
 * threads it, applies its effect, and holds it for the owner when the autonomy policy says so.
 */
export async function receiveIntent(ctx: With<"node" | "vault" | "peers" | "limiter" | "writes" | "wake" | "crypto">, input: ReceiveInput): Promise<ReceiveOutcome> {
  const agent = requireAgent(ctx);
  const now = ctx.clock.now();
  const own = cachedOwnIdentity(ctx.db, ctx.node);
  if (!own) return reject("unknown_recipient");
  const q = ingestStatements(ctx.db);
  const { envelope, sealed, keyId, replayed } = input.request;
  // What was learned about the sender's keys stays true whatever happens to this message; kept, it
  // also spares the next request a fetch (a refused sender is not fetched again on every request).
  const keepLearned = <T>(refusal: T): T => {
    const learned = input.learned;
    if (learned) transaction(ctx.db, (tx) => savePeerCard(tx, learned, now));
    return refusal;
  };
  // INK §6.3 (4), §15: with no card signing set ever observed, the key inside a key-derived id
  // verifies any intent, sealed or not; whether that sender may send it is policy (the gate below:
  // a stranger gets not_connected, a connection is let through).
  const firstContact = keyId === "bootstrap";
  if (envelope.expiresAt !== undefined) {
    const expires = parseTimestamp(envelope.expiresAt);
    if (expires !== null && expires < now) return keepLearned(reject("message_expired", "expiresAt is in the past"));
  }
  // The policy, the connection and the gate's reads share one read transaction (db/read-snapshot.ts).
  const { owner, connection, gate } = readSnapshot(ctx.db, () => {
    const owner = policyFromRow(q.policy.get());
    const connection = q.connectionByPrincipal.get(agent.principal) ?? null;
    const gate = relationshipGate(ctx, { principal: agent.principal, from: agent.agentId, intent: envelope.intent, correlationId: envelope.correlationId, payload: envelope.payload }, connection?.status ?? null, owner);
    return { owner, connection, gate };
  });
  if (!gate.ok) return keepLearned(gate);

  // The card hint (INK §15 TOFU): only for a nonce never seen, so a replay fetches nothing; stored
  // with the message, so the card is known before the owner can answer it.
  let learned = input.learned;
  const genesis = firstContact && input.cardHint && !replayed ? agentIdPublicKey(agent.agentId) : null;
  if (genesis && input.cardHint) learned = (await learnHintedCard(ctx, { from: agent.agentId, principal: agent.principal, hintUrl: input.cardHint, authenticatedKey: genesis })) ?? learned;

  // The INK audit log (AUDIT §2) records the message with it. Where there are spare cores its event
  // was signed on a worker beside the intent's verifies, or is now (a sealed intent); not for a nonce
  // already seen: that is refused below.
  const entry = messageReceived(envelope, agent.agentId);
  const signing = replayed ? null : (input.request.audit ?? (ctx.crypto.size > 0 ? signInkEventAhead(ctx, agent.principal, entry).catch(() => null) : null));
  const ahead = signing ? await signing : null; // no worker: no await, today's path
  const signed = ahead && ahead.peerPrincipal === agent.principal && sameEntry(ahead.prepared.entry, entry) ? ahead : null;
  const store: StoreContext = { now, own, owner, principal: agent.principal, from: agent.agentId, envelope, sealed, keyId, nonce: agent.nonce, learned };
  let result: ReturnType<typeof storeInbound> | { ok: false; reason: "rate_limited"; retryAfterSeconds: number };
  try {
    // Group commit: this write shares one transaction (and one fsync) with the other requests of
    // this event-loop turn, in its own savepoint; it resolves only after COMMIT.
    result = await ctx.writes.run((tx) => {
      // INK §8: the nonce is recorded last, atomically with the message; a conflict is a replay.
      if (!recordNonce(ctx.db, agent.principal, store.nonce, now)) throw new Rollback(reject("nonce_replay"));
      // INK §9 step 11: the nonce, then the per-sender limit (the owner's maxInboundRate, intents per
      // hour), so neither a forged `from` nor a replay spends a sender's budget. A limited message
      // keeps its nonce spent (committed) and is not stored.
      // Senders the node has to do with and strangers have separate budgets (charge-sender.ts).
      const hourly = chargeSender(ctx.limiter, { principal: agent.principal, intent: envelope.intent, related: hasRelationship(ctx.db, agent.principal, connection), perHour: owner.maxInboundRate, now });
      if (!hourly.allowed) {
        if (store.learned) savePeerCard(tx, store.learned, now);
        return { ok: false as const, reason: "rate_limited" as const, retryAfterSeconds: hourly.retryAfterSeconds };
      }
      const stored = storeInbound(tx, ctx, store);
      if (!stored.ok) throw new Rollback(stored); // nothing of a refused message is kept, its nonce included
      // The INK audit log (AUDIT §2), with the message: a retried delivery of it adds nothing.
      if (!stored.duplicate) signed ? recordSignedInkEvent(tx, ctx, signed) : recordInkEvent(tx, ctx, agent.principal, entry);
      return stored;
    });
  } catch (e) {
    if (e instanceof Rollback) return e.result;
    throw e;
  }
  if (!result.ok) return result;
  if (result.queuedReply) ctx.wake.outbox();
  // AUDIT §1: a receipt to a sender whose card asks for them, after commit and fire-and-forget
  // (the sender's answer does not wait for it; a sender without receipts costs nothing more).
  if (!result.duplicate && agent.card?.capabilities.receipts) void sendReceipt(ctx, { messageId: result.messageId }).catch((e) => ctx.log.warn("receipt failed", { messageId: envelope.id, error: e }));
  const { queuedReply: _q, ...outcome } = result;
  return outcome;
}

const sameEntry = (a: AuditEntry, b: AuditEntry) => a.eventType === b.eventType && a.messageId === b.messageId && a.correlationId === b.correlationId && a.counterpartyId === b.counterpartyId && a.data === b.data;

class Rollback {
  constructor(readonly result: { ok: false; reason: ReceiveReason; detail?: string }) {}
}

/**
 * Strangers may only introduce themselves (connection_request, under the foreign-sender policy);
 * besides that, a peer that is not connected may answer what we sent it: a connection_response to
 * our request, any `_response` to a request of ours in the same thread, or retract its own message.
 */
function relationshipGate(
  ctx: Ctx,
  m: { principal: string; from: string; intent: string; correlationId: string; payload: Record<string, unknown> },
  status: string | null,
  owner: OwnerPolicy,
): { ok: true } | { ok: false; reason: ReceiveReason; detail?: string } {
  if (status === "connected") return { ok: true };
  if (m.intent === "connection_request") {
    if (status === "requested") return { ok: true }; // we asked them too: a mutual request
    const decision = checkForeignSender(owner, m.principal, m.from);
    return decision.ok ? { ok: true } : reject(decision.reason);
  }
  if (m.intent === "connection_response" && status === "requested") return { ok: true };
  if (isResponseIntent(m.intent) && findAnsweredRequest(ctx.db, m)) return { ok: true };
  if (m.intent === "retract" && typeof m.payload.targetMessageId === "string") {
    const own = ctx.db
      .select({ id: messages.id })
      .from(messages)
      .where(and(eq(messages.direction, "in"), eq(messages.peerPrincipal, m.principal), eq(messages.envelopeId, m.payload.targetMessageId)))
      .get();
    if (own) return { ok: true };
  }
  return reject("not_connected", "only a connection_request is accepted from an agent that is not connected");
}

function reject(reason: ReceiveReason, detail?: string): { ok: false; reason: ReceiveReason; detail?: string } {
  return detail === undefined ? { ok: false, reason } : { ok: false, reason, detail };
}
