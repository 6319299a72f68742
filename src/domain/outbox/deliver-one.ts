import { and, eq, ne, sql } from "drizzle-orm";
import { transaction } from "../../db/client.ts";
import { agentKeys, messages, outbox } from "../../db/schema/index.ts";
import {
  buildSignedEnvelope,
  formatTimestamp,
  prepareOutbound,
  recipientEncryptionKey,
  selectProtocolVersion,
  type AgentCard,
  type EnvelopeDraft,
} from "../../ink/index.ts";
import { nativeEd25519Sign } from "../../security/ed25519-native.ts";
import { nativeEnvelopeCrypto } from "../../security/envelope-crypto-native.ts";
import type { Ctx, With } from "../context.ts";
import { ownIdentity } from "../agent/own-identity.ts";
import { activeSigningKey } from "../agent/active-signing-key.ts";
import { recordEvent } from "../internal/events.ts";
import { recordInkEvent } from "../audit/record-ink-event.ts";
import { errorOf, jsonObjectOf, parseRetryAfter, settleAttempt, isTransientStatus, type AttemptOutcome } from "../internal/retry.ts";
import { fetchPeerCard } from "../peers/fetch-peer-card.ts";
import { STALE_CARD_GRACE_MS } from "../peers/peer-cards.ts";
import { hasSigningSet } from "../peers/has-signing-set.ts";
import { savePeerCard } from "../peers/save-peer-card.ts";
import { cardOf } from "../peers/card-of.ts";
import { findPeerCard } from "../peers/find-peer-card.ts";

export type OutboxRow = typeof outbox.$inferSelect;

/** Versions we can emit, most preferred first: 0.2 goes only to peers that advertise it (INK §16). */
const OUR_VERSIONS = ["ink/0.2", "ink/0.1"] as const;
const DELIVERY_TIMEOUT_MS = 10_000;
/**
 * How long after this node's signing key changed (rotation, revocation) a peer's refusal of the
 * signature is taken as its cache not having caught up yet (docs/decisions/key-revocation.md).
 */
export const NEW_KEY_GRACE_MS = 15 * 60 * 1000;

/**
 * One delivery attempt: the envelope is signed afresh (new timestamp and nonce, same id) so a
 * retry is fresh at the receiver, sealed for the peer's current encryption key when confidential,
 * and POSTed to the card endpoint through the SSRF gate without following redirects. 2xx is
 * delivered; network errors, 408, 425, 429 and 5xx are retried with exponential backoff
 * (Retry-After honoured); any other answer is a permanent failure with its reason.
 */
export async function deliverOne(ctx: With<"node" | "vault" | "peers">, item: OutboxRow): Promise<AttemptOutcome> {
  const message = ctx.db.select().from(messages).where(eq(messages.id, item.messageId)).get();
  if (!message) return settle(ctx, item, { kind: "failed", error: "message missing" });
  const attempt = await attemptDelivery(ctx, item, message);
  return settle(ctx, item, attempt.outcome, attempt.envelopeJson, attempt.protocol);
}

async function attemptDelivery(
  ctx: With<"node" | "vault" | "peers">,
  item: OutboxRow,
  message: typeof messages.$inferSelect,
): Promise<{ outcome: AttemptOutcome; envelopeJson?: string; protocol?: string }> {
  const own = ownIdentity(ctx.db, ctx.node);
  const key = activeSigningKey(ctx.db, ctx.vault);
  if (!own || !key) return { outcome: { kind: "failed", error: "this node has no agent or signing key" } };
  const card = await currentCard(ctx, item.peerPrincipal, message.peerAgentId);
  if (!card.ok) return { outcome: card.outcome };

  const protocol = selectProtocolVersion(OUR_VERSIONS, card.card.supportedProtocolVersions);
  if (!protocol) return { outcome: { kind: "failed", error: "no protocol version in common with the peer" } };
  const now = ctx.clock.now();
  const draft: EnvelopeDraft = {
    protocol,
    id: message.envelopeId,
    correlationId: message.correlationId,
    createdAt: formatTimestamp(message.createdAt),
    from: own.agentId,
    to: card.card.agentId,
    intent: message.intent,
    payload: JSON.parse(message.payloadJson),
    timestamp: formatTimestamp(now),
    nonce: Buffer.from(crypto.getRandomValues(new Uint8Array(24))).toString("base64url"),
    signingKeyId: key.keyId,
  };
  if (message.expiresAt !== null) draft.expiresAt = formatTimestamp(message.expiresAt);
  if (message.provenanceJson !== null) draft.provenance = JSON.parse(message.provenanceJson);
  // Both signatures with the native signer: the same bytes as noble's (Ed25519 is deterministic), ~20x less CPU.
  const built = buildSignedEnvelope(draft, key.privateKey, ctx.node.wordmark, nativeEd25519Sign);
  if (!built.ok) return { outcome: { kind: "failed", error: `cannot sign: ${built.reason}${built.issue ? ` (${built.issue})` : ""}` } };
  const prepared = prepareOutbound({
    envelope: built.envelope,
    recipient: { agentId: card.card.agentId, endpoint: card.card.endpoint, encryptionKey: recipientEncryptionKey(card.card, now)?.publicKey ?? null },
    secretKey: key.privateKey,
    keyId: key.keyId,
    wordmark: ctx.node.wordmark,
    sign: nativeEd25519Sign,
    envelopeCrypto: nativeEnvelopeCrypto,
    // INK §3.4 dual-accept: every receiver accepts network.ink.*; network.svc.* only svc peers do.
    neutralType: ctx.node.wordmark === "svc" && !card.card.agentId.startsWith("svc:"),
  });
  if (!prepared.ok) return { outcome: { kind: "failed", error: `cannot prepare the request: ${prepared.reason}` } };

  // The envelope as sent is stored before it leaves: the peer's receipt (AUDIT §1) hashes this
  // attempt's envelope and may arrive before this attempt settles.
  const envelopeJson = JSON.stringify(built.envelope);
  transaction(ctx.db, (tx) => tx.update(messages).set({ envelopeJson }).where(eq(messages.id, message.id)).run());
  const res = await ctx.peers.http.request(prepared.url, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: prepared.authorization, link: `<${own.cardUrl}>; rel="agent-card"` },
    body: prepared.bodyText,
    timeoutMs: DELIVERY_TIMEOUT_MS,
    maxBytes: 65_536,
  });
  if (!res.ok) {
    const permanent = res.reason === "invalid_url" || res.reason === "blocked_host" || res.reason === "blocked_address";
    return { outcome: permanent ? { kind: "failed", error: `${res.reason}: ${res.detail}` } : { kind: "retry", error: `${res.reason}: ${res.detail}` }, envelopeJson, protocol };
  }
  if (res.status >= 200 && res.status < 300) return { outcome: { kind: "delivered", status: res.status }, envelopeJson, protocol };
  const reason = errorOf(jsonObjectOf(res.body)) ?? `HTTP ${res.status}`;
  if (isTransientStatus(res.status) || refusedNewKey(ctx, res.status, jsonObjectOf(res.body), key.since, now)) {
    const retryAfterMs = parseRetryAfter(res.headers.get("retry-after"), now);
    return { outcome: { kind: "retry", error: reason, status: res.status, ...(retryAfterMs !== null ? { retryAfterMs } : {}) }, envelopeJson, protocol };
  }
  return { outcome: { kind: "failed", error: reason, status: res.status }, envelopeJson, protocol };
}

/**
 * A 401 for the signature or the key shortly after our key changed: the peer still has our old card
 * (a receiver refreshes a card at most once a minute), so trying again later works — retried with
 * backoff (1 s, 2 s, 4 s … reaches past the minute well inside the grace) instead of failing for good.
 */
function refusedNewKey(ctx: Ctx, status: number, body: Record<string, unknown> | null, keySince: number, now: number): boolean {
  const code = typeof body?.code === "string" ? body.code : typeof body?.error === "string" ? body.error : null;
  if (status !== 401 || (code !== "signature_verification_failed" && code !== "unresolvable_sender_key") || now - keySince >= NEW_KEY_GRACE_MS) return false;
  // The genesis key is not a change: a new node's refused first message fails as before.
  return ctx.db.select({ keyId: agentKeys.keyId }).from(agentKeys).where(and(eq(agentKeys.role, "signing"), ne(agentKeys.status, "active"))).get() !== undefined;
}

/** The peer's card for delivery: cached while fresh, refetched when stale (a stale one serves within the grace period). */
async function currentCard(ctx: With<"node" | "vault" | "peers">, principal: string, agentId: string): Promise<{ ok: true; card: AgentCard } | { ok: false; outcome: AttemptOutcome }> {
  const now = ctx.clock.now();
  const row = findPeerCard(ctx.db, principal);
  const cached = cardOf(row);
  if (cached && (row?.expiresAt ?? 0) >= now) return { ok: true, card: cached };
  if (!row?.cardUrl) {
    return cached ? { ok: true, card: cached } : { ok: false, outcome: { kind: "failed", error: "no known Agent Card URL for this peer" } };
  }
  const fetched = await fetchPeerCard(ctx, { cardUrl: row.cardUrl, agentId: cached?.agentId ?? agentId });
  if (fetched.ok) {
    transaction(ctx.db, (tx) =>
      savePeerCard(tx, { principal, agentId: fetched.card.agentId, cardUrl: row.cardUrl, card: { json: fetched.cardJson, signingSet: hasSigningSet(fetched.card) }, refreshAttempt: true }, now),
    );
    return { ok: true, card: fetched.card };
  }
  // A card refused for continuity never replaces the stored one, however old (INK §13).
  if (cached && (fetched.reason === "card_continuity" || now - (row.fetchedAt ?? 0) <= STALE_CARD_GRACE_MS)) return { ok: true, card: cached };
  return { ok: false, outcome: { kind: "retry", error: `peer card unavailable: ${fetched.reason}` } };
}

function settle(ctx: With<"node" | "vault">, item: OutboxRow, outcome: AttemptOutcome, envelopeJson?: string, protocol?: string): AttemptOutcome {
  const now = ctx.clock.now();
  const { final, update } = settleAttempt(outcome, item.attempts, now);
  transaction(ctx.db, (tx) => {
    tx.update(outbox).set(update).where(eq(outbox.id, item.id)).run();
    const messageStatus = final.kind === "delivered" ? "delivered" : final.kind === "failed" ? "failed" : "queued";
    tx.update(messages)
      .set({ status: messageStatus, ...(envelopeJson ? { envelopeJson } : {}), ...(protocol ? { protocol } : {}) })
      .where(and(eq(messages.id, item.messageId), sql`${messages.status} != 'cancelled'`))
      .run();
    if (final.kind !== "retry") {
      const message = tx
        .select({ envelopeId: messages.envelopeId, provenanceJson: messages.provenanceJson, correlationId: messages.correlationId, peerAgentId: messages.peerAgentId })
        .from(messages)
        .where(eq(messages.id, item.messageId))
        .get();
      recordEvent(tx, final.kind === "delivered" ? "message.delivered" : "message.rejected", now, {
        subjectId: message?.envelopeId,
        peerPrincipal: item.peerPrincipal,
        ...(final.kind === "failed" ? { error: final.error } : {}),
        ...(message?.provenanceJson ? { installationId: (JSON.parse(message.provenanceJson) as { installationId: string }).installationId } : {}),
      });
      // The INK audit log (AUDIT §2): the peer accepted it. Its receipt, if any, follows as receipt.received.
      if (final.kind === "delivered" && message) recordInkEvent(tx, ctx, item.peerPrincipal, { eventType: "message.sent", messageId: message.envelopeId, correlationId: message.correlationId, counterpartyId: message.peerAgentId });
    }
  });
  if (final.kind !== "delivered") ctx.log.warn("delivery attempt failed", { outbox: item.id, peer: item.peerPrincipal, attempts: update.attempts, outcome: final.kind, error: final.error });
  return final;
}
