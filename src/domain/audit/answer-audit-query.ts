import { and, eq } from "drizzle-orm";
import { messages } from "../../db/schema/index.ts";
import { signAuditResponse, type AuditResponse } from "../../ink/profiles.ts";
import { nativeEd25519Sign } from "../../security/ed25519-native.ts";
import type { With } from "../context.ts";
import { activeSigningKey } from "../agent/active-signing-key.ts";
import { requireAgent } from "../internal/actors.ts";
import { auditEventsAbout } from "../internal/audit-chain.ts";
import type { PeerCardUpdate } from "../peers/peer-cards.ts";
import { recordPeerRequest } from "../peers/record-peer-request.ts";
import { inkChainOf } from "../internal/ink-chain.ts";

/** Audit queries per requester: a reconciliation asks about a few messages, not thousands. */
const PER_REQUESTER = { bucket: "audit-query-agent", limit: 60, windowMs: 60_000 };

export type AuditQueryOutcome = { ok: true; response: AuditResponse } | { ok: false; reason: "access_denied" | "nonce_replay" | "rate_limited" | "unknown_recipient"; detail?: string; retryAfterSeconds?: number };

/**
 * `POST /ink/v1/audit` (AUDIT §4): the lifecycle events of one message, for the agent that sent
 * or received it (anyone else: `access_denied`, whether or not the message exists), as the
 * contiguous slice of this node's chain with that agent, signed over JCS(events) by the active key.
 */
export function answerAuditQuery(ctx: With<"node" | "vault" | "limiter">, input: { request: { messageId: string }; learned: PeerCardUpdate | null }): AuditQueryOutcome {
  const agent = requireAgent(ctx);
  const { messageId } = input.request;
  const party = ctx.db.select({ id: messages.id }).from(messages).where(and(eq(messages.envelopeId, messageId), eq(messages.peerPrincipal, agent.principal))).get();
  if (!party) return { ok: false, reason: "access_denied", detail: "you are neither the sender nor the recipient of this message" };
  const recorded = recordPeerRequest(ctx, input.learned, PER_REQUESTER);
  if (!recorded.ok) return recorded.replay ? { ok: false, reason: "nonce_replay" } : { ok: false, reason: "rate_limited", retryAfterSeconds: recorded.retryAfterSeconds };
  const key = activeSigningKey(ctx.db, ctx.vault);
  if (!key) return { ok: false, reason: "unknown_recipient" };
  const signed = signAuditResponse(messageId, auditEventsAbout(ctx.db, inkChainOf(agent.principal), messageId), key.privateKey, ctx.node.wordmark, nativeEd25519Sign);
  if (!signed.ok) throw new TypeError("stored audit events are not canonicalizable");
  return { ok: true, response: signed.response };
}
