import type { Tx } from "../../db/client.ts";
import { messages } from "../../db/schema/index.ts";
import type { Ids } from "../context.ts";
import { searchTextOf, subjectOf, touchConnection, touchConversation } from "../internal/message-rows.ts";
import { recordEvent } from "../internal/events.ts";
import { queueDelivery } from "./queue-delivery.ts";

export interface OutboundDraft {
  peerPrincipal: string;
  peerAgentId: string;
  intent: string;
  payload: Record<string, unknown>;
  correlationId?: string;
  /** The inbound message this answers (local message id). */
  inReplyTo?: string | null;
  expiresAt?: number | null;
  /** `held`: stored for owner approval, not queued (pending action of kind outbound_intent). */
  hold?: boolean;
  /** INK §2 envelope `provenance` of a message an extension sends (origin becomes agent_approved when the owner approves it). */
  provenance?: { origin: "agent_autonomous" | "agent_approved"; extensionId: string; installationId: string };
}

export interface Enqueued {
  messageId: string;
  envelopeId: string;
  correlationId: string;
  conversationId: string;
}

/**
 * Writes an outbound message and its outbox row in the caller's transaction (DESIGN: queued in
 * the same transaction as the conversation row). The envelope id is fixed here and never changes;
 * protocol version, timestamp, nonce and signatures are made fresh at each delivery attempt.
 */
export function enqueueOutbound(tx: Tx, ids: Ids, draft: OutboundDraft, at: number): Enqueued {
  const envelopeId = ids.next();
  const correlationId = draft.correlationId ?? envelopeId;
  const conversationId = touchConversation(tx, ids, { peerPrincipal: draft.peerPrincipal, correlationId, subject: subjectOf(draft.intent, draft.payload), at });
  const messageId = `msg_${ids.next()}`;
  tx.insert(messages)
    .values({
      id: messageId,
      envelopeId,
      direction: "out",
      peerPrincipal: draft.peerPrincipal,
      peerAgentId: draft.peerAgentId,
      conversationId,
      correlationId,
      intent: draft.intent,
      protocol: "ink/0.1",
      payloadJson: JSON.stringify(draft.payload),
      status: draft.hold ? "held" : "queued",
      createdAt: at,
      receivedAt: at,
      expiresAt: draft.expiresAt ?? null,
      inReplyTo: draft.inReplyTo ?? null,
      searchText: searchTextOf(draft.intent, draft.peerAgentId, draft.payload),
      provenanceJson: draft.provenance ? JSON.stringify(draft.provenance) : null,
    })
    .run();
  if (!draft.hold) queueDelivery(tx, ids, messageId, draft.peerPrincipal, at);
  touchConnection(tx, draft.peerPrincipal, at);
  recordEvent(tx, draft.hold ? "message.held" : "message.queued", at, {
    subjectId: envelopeId,
    peerPrincipal: draft.peerPrincipal,
    intent: draft.intent,
    ...(draft.provenance ? { installationId: draft.provenance.installationId } : {}),
  });
  return { messageId, envelopeId, correlationId, conversationId };
}

