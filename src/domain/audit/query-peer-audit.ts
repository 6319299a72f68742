import { and, eq, or } from "drizzle-orm";
import { messages } from "../../db/schema/index.ts";
import { formatTimestamp, resolveSenderKeys, signTransport } from "../../ink/index.ts";
import { verifyAuditResponse, type AuditEvent } from "../../ink/profiles.ts";
import { nativeEd25519Sign, nativeStrictVerifier } from "../../security/ed25519-native.ts";
import type { With } from "../context.ts";
import { DomainError } from "../errors.ts";
import { activeSigningKey } from "../agent/active-signing-key.ts";
import { ownIdentity } from "../agent/own-identity.ts";
import { requireOwner } from "../internal/actors.ts";
import { notFound } from "../internal/errors.ts";
import { cardOf } from "../peers/card-of.ts";
import { findPeerCard } from "../peers/find-peer-card.ts";

const AUDIT_TIMEOUT_MS = 5_000;

/**
 * `GET /api/svc/intents/:id/audit`: asks the peer of a message (sent or received) for its audit
 * events (AUDIT §4, `POST <its origin>/ink/v1/audit`, transport-signed) and returns them only
 * when both gates pass: the response signature by the peer's card keys and the slice's chain,
 * and each event's own signature. Only peers whose card advertises `auditExchange`.
 */
export async function queryPeerAudit(ctx: With<"node" | "vault" | "peers">, id: string): Promise<{ peer: string; messageId: string; verified: true; events: AuditEvent[] }> {
  requireOwner(ctx, "reconciles a message with its peer");
  const row = ctx.db.select().from(messages).where(and(or(eq(messages.envelopeId, id), eq(messages.id, id)))).get();
  if (!row) throw notFound("message");
  const card = cardOf(findPeerCard(ctx.db, row.peerPrincipal));
  if (!card?.capabilities.auditExchange) throw new DomainError("conflict", "the peer's Agent Card does not advertise auditExchange");
  const own = ownIdentity(ctx.db, ctx.node);
  const key = activeSigningKey(ctx.db, ctx.vault);
  if (!own || !key) throw new DomainError("unavailable", "this node has no signing key");
  const timestamp = formatTimestamp(ctx.clock.now());
  const body = { protocol: "ink/0.1", type: "network.ink.audit_query", from: own.agentId, to: row.peerAgentId, messageId: row.envelopeId, nonce: Buffer.from(crypto.getRandomValues(new Uint8Array(16))).toString("hex"), timestamp };
  const signed = signTransport({ method: "POST", path: "/ink/v1/audit", recipientDid: row.peerAgentId, body, timestamp }, key.privateKey, key.keyId, nativeEd25519Sign);
  if (!signed.ok) throw new DomainError("unavailable", "cannot sign the audit query");
  const res = await ctx.peers.http.request(new URL("/ink/v1/audit", card.endpoint).toString(), {
    method: "POST",
    headers: { "content-type": "application/json", accept: "application/json", authorization: signed.authorization },
    body: JSON.stringify(body),
    timeoutMs: AUDIT_TIMEOUT_MS,
    maxBytes: 1_048_576,
  });
  if (!res.ok) throw new DomainError("unavailable", `the peer did not answer: ${res.reason}`);
  let response: unknown;
  try {
    response = JSON.parse(new TextDecoder().decode(res.body));
  } catch {
    response = null;
  }
  if (res.status !== 200) throw new DomainError("unavailable", `the peer refused the audit query (${res.status}${typeof (response as { error?: unknown })?.error === "string" ? `: ${(response as { error: string }).error}` : ""})`);
  const keys = resolveSenderKeys({ card, agentId: row.peerAgentId });
  // The response's type is spelled in the responder's wordmark only (AUDIT §4).
  const wordmark = row.peerAgentId.startsWith("tulpa:") ? "tulpa" : row.peerAgentId.startsWith("svc:") ? "svc" : ctx.node.wordmark;
  const checked = verifyAuditResponse({ response, responderKeys: keys, atMs: ctx.clock.now(), eventKeys: () => keys, wordmark, verifier: nativeStrictVerifier });
  if (!checked.ok) throw new DomainError("unavailable", `the peer's audit response does not verify: ${checked.reason}`);
  return { peer: row.peerAgentId, messageId: row.envelopeId, verified: true, events: checked.events };
}
