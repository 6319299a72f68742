import { eq } from "drizzle-orm";
import { transaction } from "../../db/client.ts";
import { messages } from "../../db/schema/index.ts";
import { formatTimestamp, signTransport } from "../../ink/index.ts";
import { buildReceipt, wantsReceipt } from "../../ink/profiles.ts";
import { nativeEd25519Sign } from "../../security/ed25519-native.ts";
import type { With } from "../context.ts";
import { activeSigningKey } from "../agent/active-signing-key.ts";
import { ownIdentity } from "../agent/own-identity.ts";
import { recordInkEvent } from "../audit/record-ink-event.ts";
import { cardOf } from "../peers/card-of.ts";
import { findPeerCard } from "../peers/find-peer-card.ts";

const RECEIPT_TIMEOUT_MS = 5_000;

/**
 * Sends a `delivered` receipt (AUDIT §1) for a message this node stored, to the sender's node:
 * `POST <origin of its card's endpoint>/ink/v1/receipt` (the path is fixed by AUDIT, [A4]:
 * docs/decisions/receipts-and-audit.md), transport-signed, through the peer client (SSRF gate, no
 * redirects), 5 s. Fire-and-forget as in the reference: only to a sender whose card advertises
 * receipts, never for a receipt or an audit message; a `receipt.sent` audit event when accepted.
 */
export async function sendReceipt(ctx: With<"node" | "vault" | "peers">, input: { messageId: string }): Promise<"sent" | "skipped" | "failed"> {
  const row = ctx.db.select().from(messages).where(eq(messages.id, input.messageId)).get();
  if (!row || row.direction !== "in" || !row.envelopeJson) return "skipped";
  const card = cardOf(findPeerCard(ctx.db, row.peerPrincipal));
  const own = ownIdentity(ctx.db, ctx.node);
  const key = activeSigningKey(ctx.db, ctx.vault);
  const envelope = JSON.parse(row.envelopeJson) as unknown;
  if (!card?.capabilities.receipts || !own || !key || !wantsReceipt(envelope)) return "skipped";
  const now = ctx.clock.now();
  const timestamp = formatTimestamp(now);
  const receipt = buildReceipt(
    { from: own.agentId, to: row.peerAgentId, messageId: row.envelopeId, disposition: "delivered", dispositionAt: formatTimestamp(row.receivedAt), message: envelope, nonce: Buffer.from(crypto.getRandomValues(new Uint8Array(16))).toString("hex"), timestamp },
    key.privateKey,
    ctx.node.wordmark,
    nativeEd25519Sign,
  );
  if (!receipt) return "skipped";
  const url = new URL("/ink/v1/receipt", card.endpoint).toString();
  const signed = signTransport({ method: "POST", path: "/ink/v1/receipt", recipientDid: row.peerAgentId, body: receipt, timestamp }, key.privateKey, key.keyId, nativeEd25519Sign);
  if (!signed.ok) return "skipped";
  const res = await ctx.peers.http.request(url, { method: "POST", headers: { "content-type": "application/json", authorization: signed.authorization }, body: JSON.stringify(receipt), timeoutMs: RECEIPT_TIMEOUT_MS, maxBytes: 16_384 });
  if (!res.ok || res.status < 200 || res.status >= 300) {
    ctx.log.info("receipt not accepted", { peer: row.peerPrincipal, messageId: row.envelopeId, ...(res.ok ? { status: res.status } : { reason: res.reason }) });
    return "failed";
  }
  transaction(ctx.db, (tx) => recordInkEvent(tx, ctx, row.peerPrincipal, { eventType: "receipt.sent", messageId: row.envelopeId, correlationId: row.correlationId, counterpartyId: row.peerAgentId, data: { disposition: "delivered" } }));
  return "sent";
}
