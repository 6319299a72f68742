import { and, eq } from "drizzle-orm";
import type { Tx } from "../../../db/client.ts";
import { connections, messages, pendingActions } from "../../../db/schema/index.ts";
import { ingestStatements, type ConnectionLite, type InboundRowLite } from "../../../db/ingest-statements.ts";
import { canonicalize, parseTimestamp, type IntentEnvelope } from "../../../ink/index.ts";
import type { Ctx } from "../../context.ts";
import type { OwnIdentity } from "../../agent/own-identity.ts";
import { searchTextOf, subjectOf } from "../../internal/message-rows.ts";
import { recordEvent } from "../../internal/events.ts";
import { isResponseIntent } from "../../internal/response-intents.ts";
import { enqueueOutbound } from "../../messages/enqueue-outbound.ts";
import { type PeerCardUpdate } from "../../peers/peer-cards.ts";
import { savePeerCard } from "../../peers/save-peer-card.ts";
import type { OwnerPolicy } from "../../policy/owner-policy.ts";
import { findAnsweredRequest } from "./find-answered-request.ts";

export interface StoreContext {
  now: number;
  own: OwnIdentity;
  owner: OwnerPolicy;
  principal: string;
  from: string;
  envelope: IntentEnvelope;
  sealed: boolean;
  keyId: string;
  nonce: string;
  learned: PeerCardUpdate | null;
}

/** What receiving a message produced (also the answer to a retried delivery of it). */
export interface StoredMessage {
  /** `held`: waiting for the owner (autonomy rule); `stored`: in the inbox. */
  outcome: "stored" | "held";
  envelopeId: string;
  correlationId: string;
  messageId: string;
  pendingActionId: string | null;
  duplicate: boolean;
}

export type StoreResult = ({ ok: true; queuedReply: boolean } & StoredMessage) | { ok: false; reason: "duplicate_message_id"; detail?: string };

/** The write half of receiving: runs inside the caller's transaction, after the nonce was recorded. */
export function storeInbound(tx: Tx, ctx: Ctx, s: StoreContext): StoreResult {
  const { envelope: env, now } = s;
  const q = ingestStatements(ctx.db);
  if (s.learned) savePeerCard(tx, s.learned, now);

  const existing = q.inboundById.get(s.principal, env.id);
  if (existing) {
    // A retried delivery of the same message gets the same answer, and no second row.
    if (!sameMessage(existing, env)) return { ok: false, reason: "duplicate_message_id", detail: "this sender already used this message id for another message" };
    return { ok: true, outcome: existing.status === "pending" ? "held" : "stored", envelopeId: env.id, correlationId: env.correlationId, messageId: existing.id, pendingActionId: existing.pendingActionId, duplicate: true, queuedReply: false };
  }

  const connection = q.connectionByPrincipal.get(s.principal) ?? null;
  const level = s.owner.trustedDids.includes(s.principal) ? "full" : s.owner.maxAutonomyLevel;
  const answersUs = isResponseIntent(env.intent) && findAnsweredRequest(tx, { principal: s.principal, correlationId: env.correlationId, intent: env.intent }) !== null;
  // SPEC autonomy rule: below `full`, anything the agent would act on waits for the owner. A
  // retraction and an answer to our own request are bookkeeping, not actions.
  const hold = level !== "full" && env.intent !== "retract" && !answersUs;

  const thread = q.conversation.get(s.principal, env.correlationId);
  let conversationId: string;
  if (thread) {
    conversationId = thread.id;
    q.touchConversation.run(now, conversationId);
  } else {
    conversationId = `cnv_${ctx.ids.next()}`;
    q.insertConversation.run(conversationId, s.principal, env.correlationId, subjectOf(env.intent, env.payload), now, now);
  }
  const messageId = `msg_${ctx.ids.next()}`;
  const pendingActionId = hold ? ctx.ids.next() : null;
  q.insertMessage.run(
    messageId, env.id, s.principal, s.from, conversationId, env.correlationId, env.intent, env.protocol,
    JSON.stringify(env.payload), JSON.stringify(env), s.sealed ? 1 : 0, hold ? "pending" : "unread",
    parseTimestamp(env.createdAt) ?? now, now, env.expiresAt === undefined ? null : parseTimestamp(env.expiresAt), s.keyId, pendingActionId,
    searchTextOf(env.intent, s.from, env.payload),
  );
  q.insertEvent.run("message.received", env.id, s.principal, JSON.stringify({ intent: env.intent, sealed: s.sealed, ...(pendingActionId ? { pendingActionId } : {}) }), now);

  const effect = applyEffect(tx, ctx, s, { messageId, connection, hold, level });
  if (pendingActionId !== null) {
    const kind = env.intent === "connection_request" ? "connection_request" : "inbound_intent";
    q.insertPending.run(pendingActionId, kind, messageId, effect.connectionId, `autonomy level ${level}: ${env.intent} needs the owner`, now);
  }
  q.touchConnection.run(now, s.principal);
  return { ok: true, outcome: hold ? "held" : "stored", envelopeId: env.id, correlationId: env.correlationId, messageId, pendingActionId, duplicate: false, queuedReply: effect.queuedReply };
}

/** What an intent does to the node's state besides being stored. */
function applyEffect(
  tx: Tx,
  ctx: Ctx,
  s: StoreContext,
  m: { messageId: string; connection: ConnectionLite | null; hold: boolean; level: string },
): { connectionId: string | null; queuedReply: boolean } {
  const { envelope: env, now } = s;
  const snapshot = typeof env.payload.profileSnapshot === "object" && env.payload.profileSnapshot !== null ? JSON.stringify(env.payload.profileSnapshot) : null;
  switch (env.intent) {
    case "connection_request": {
      const mutual = m.connection?.status === "requested";
      const accept = mutual || !m.hold;
      const id = upsertConnection(tx, ctx, s, m.connection, {
        status: accept ? "connected" : m.connection?.status === "connected" ? "connected" : "pending",
        initiatedBy: m.connection?.initiatedBy ?? "them",
        profileSnapshotJson: snapshot,
        requestMessageId: m.messageId,
      });
      recordEvent(tx, "connection.requested", now, { subjectId: id, peerPrincipal: s.principal });
      if (!accept) return { connectionId: id, queuedReply: false };
      enqueueOutbound(tx, ctx.ids, { peerPrincipal: s.principal, peerAgentId: s.from, intent: "connection_response", payload: { status: "accepted" }, correlationId: env.correlationId, inReplyTo: m.messageId }, now);
      tx.update(messages).set({ status: "responded", respondedAt: now }).where(eq(messages.id, m.messageId)).run();
      recordEvent(tx, "connection.accepted", now, { subjectId: id, peerPrincipal: s.principal, by: mutual ? "mutual_request" : "autonomy" });
      return { connectionId: id, queuedReply: true };
    }
    case "connection_response": {
      if (!m.connection) return { connectionId: null, queuedReply: false };
      const status = env.payload.status;
      if (m.connection.status === "requested" && (status === "accepted" || status === "declined")) {
        tx.update(connections)
          .set({ status: status === "accepted" ? "connected" : "declined", connectedAt: status === "accepted" ? now : m.connection.connectedAt, updatedAt: now, ...(snapshot ? { profileSnapshotJson: snapshot } : {}) })
          .where(eq(connections.id, m.connection.id))
          .run();
        recordEvent(tx, status === "accepted" ? "connection.accepted" : "connection.declined", now, { subjectId: m.connection.id, peerPrincipal: s.principal, by: "peer" });
      }
      markRequestAnswered(tx, s, m.messageId);
      return { connectionId: m.connection.id, queuedReply: false };
    }
    case "retract": {
      const target = tx
        .select()
        .from(messages)
        .where(and(eq(messages.direction, "in"), eq(messages.peerPrincipal, s.principal), eq(messages.envelopeId, String(env.payload.targetMessageId))))
        .get();
      if (target) {
        tx.update(messages).set({ status: "retracted" }).where(eq(messages.id, target.id)).run();
        if (target.pendingActionId) {
          tx.update(pendingActions)
            .set({ status: "rejected", decidedAt: now, resultJson: JSON.stringify({ by: "sender", reason: "retracted" }) })
            .where(and(eq(pendingActions.id, target.pendingActionId), eq(pendingActions.status, "pending")))
            .run();
        }
        recordEvent(tx, "message.retracted", now, { subjectId: target.envelopeId, peerPrincipal: s.principal });
      }
      return { connectionId: m.connection?.id ?? null, queuedReply: false };
    }
    default:
      if (isResponseIntent(env.intent)) markRequestAnswered(tx, s, m.messageId);
      return { connectionId: m.connection?.id ?? null, queuedReply: false };
  }
}

function upsertConnection(
  tx: Tx,
  ctx: Ctx,
  s: StoreContext,
  existing: ConnectionLite | null,
  values: { status: "pending" | "connected"; initiatedBy: "us" | "them"; profileSnapshotJson: string | null; requestMessageId: string },
): string {
  const now = s.now;
  const card = s.learned?.card ? (JSON.parse(s.learned.card.json) as { handle?: string; displayName?: string }) : null;
  const common = {
    agentId: s.from,
    status: values.status,
    updatedAt: now,
    requestMessageId: values.requestMessageId,
    ...(values.status === "connected" && existing?.status !== "connected" ? { connectedAt: now } : {}),
    ...(values.profileSnapshotJson ? { profileSnapshotJson: values.profileSnapshotJson } : {}),
    ...(card?.handle ? { handle: card.handle } : {}),
    ...(card?.displayName ? { displayName: card.displayName } : {}),
    ...(s.learned?.cardUrl ? { cardUrl: s.learned.cardUrl } : {}),
  };
  if (existing) {
    tx.update(connections).set(common).where(eq(connections.id, existing.id)).run();
    return existing.id;
  }
  const id = `con_${ctx.ids.next()}`;
  tx.insert(connections).values({ id, principal: s.principal, initiatedBy: values.initiatedBy, createdAt: now, ...common }).run();
  return id;
}

/** Links a response to the request it answers (same peer, same correlationId). */
function markRequestAnswered(tx: Tx, s: StoreContext, responseId: string): void {
  const asked = findAnsweredRequest(tx, { principal: s.principal, correlationId: s.envelope.correlationId, intent: s.envelope.intent });
  if (!asked) return;
  tx.update(messages).set({ respondedAt: s.now }).where(eq(messages.id, asked.id)).run();
  tx.update(messages).set({ inReplyTo: asked.id }).where(eq(messages.id, responseId)).run();
}

/** Same message = same intent, thread and payload (timestamps, nonce and signature differ on retries). */
function sameMessage(row: InboundRowLite, env: IntentEnvelope): boolean {
  const a = canonicalize(JSON.parse(row.payloadJson));
  const b = canonicalize(env.payload);
  return row.intent === env.intent && row.correlationId === env.correlationId && a.ok && b.ok && a.text === b.text;
}
