import { and, eq } from "drizzle-orm";
import { transaction } from "../../db/client.ts";
import { messageReceipts, messages } from "../../db/schema/index.ts";
import { verifyReceipt, type ReceiptFailure } from "../../ink/profiles.ts";
import { nativeStrictVerifier } from "../../security/ed25519-native.ts";
import type { With } from "../context.ts";
import { ownIdentity } from "../agent/own-identity.ts";
import { recordInkEvent } from "../audit/record-ink-event.ts";
import { requireAgent } from "../internal/actors.ts";
import type { PeerCardUpdate } from "../peers/peer-cards.ts";
import { recordNonce } from "../peers/record-nonce.ts";
import { savePeerCard } from "../peers/save-peer-card.ts";

export type ReceiveReceiptReason = ReceiptFailure | "unknown_message" | "unknown_recipient" | "nonce_replay";

/**
 * `POST /ink/v1/receipt` (AUDIT §1): a peer's receipt for a message this node sent it. The sender
 * was authenticated at the edge; here the receipt is checked against the message as we sent it
 * (from = that peer, to = us, its id, the hash of the envelope we signed, the body signature when
 * present), then kept once per disposition with a `receipt.received` audit event, the nonce last.
 */
export function receiveReceipt(ctx: With<"node" | "vault">, input: { request: Record<string, unknown>; learned: PeerCardUpdate | null }): { ok: true; disposition: string; duplicate: boolean } | { ok: false; reason: ReceiveReceiptReason; detail?: string } {
  const agent = requireAgent(ctx);
  const own = ownIdentity(ctx.db, ctx.node);
  if (!own) return { ok: false, reason: "unknown_recipient" };
  const messageId = typeof input.request.messageId === "string" ? input.request.messageId : "";
  const sent = ctx.db
    .select({ id: messages.id, envelopeJson: messages.envelopeJson, correlationId: messages.correlationId })
    .from(messages)
    .where(and(eq(messages.envelopeId, messageId), eq(messages.peerPrincipal, agent.principal), eq(messages.direction, "out")))
    .get();
  if (!sent?.envelopeJson) return { ok: false, reason: "unknown_message", detail: "no message with this id was sent to you" };
  const checked = verifyReceipt(input.request, { from: agent.agentId, to: own.agentId, messageId, sentMessage: JSON.parse(sent.envelopeJson), keys: agent.keys, wordmark: ctx.node.wordmark, verifier: nativeStrictVerifier });
  if (!checked.ok) return checked;
  const r = checked.receipt;
  const now = ctx.clock.now();
  try {
    return transaction(ctx.db, (tx) => {
      if (input.learned) savePeerCard(tx, input.learned, now);
      const inserted = tx
        .insert(messageReceipts)
        .values({ id: ctx.ids.next(), messageId: sent.id, peerPrincipal: agent.principal, disposition: r.disposition, dispositionAt: r.dispositionAt, receiptJson: JSON.stringify(input.request), receivedAt: now })
        .onConflictDoNothing()
        .returning({ id: messageReceipts.id })
        .all();
      if (inserted.length > 0) recordInkEvent(tx, ctx, agent.principal, { eventType: "receipt.received", messageId, correlationId: sent.correlationId, counterpartyId: agent.agentId, data: { disposition: r.disposition } });
      // INK §8: the nonce last, atomically with what the receipt changed.
      if (!recordNonce(ctx.db, agent.principal, agent.nonce, now)) throw new Replay();
      return { ok: true as const, disposition: r.disposition, duplicate: inserted.length === 0 };
    });
  } catch (e) {
    if (e instanceof Replay) return { ok: false, reason: "nonce_replay" };
    throw e;
  }
}

class Replay {}
