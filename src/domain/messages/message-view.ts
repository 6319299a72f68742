import type { outbox } from "../../db/schema/index.ts";
import type { MessageRow } from "../internal/message-rows.ts";
import { iso } from "../internal/iso.ts";
import { retryView, type RetryView } from "../internal/retry.ts";

export interface MessageView {
  /** The envelope `id`, exactly as on the wire. */
  id: string;
  messageId: string;
  direction: "inbound" | "outbound";
  from: string | null;
  to: string | null;
  intent: string;
  payload: Record<string, unknown>;
  correlationId: string;
  conversationId: string;
  protocol: string;
  sealed: boolean;
  status: string;
  createdAt: string;
  receivedAt: string;
  expiresAt: string | null;
  inReplyTo: string | null;
  respondedAt: string | null;
  pendingActionId: string | null;
  delivery?: DeliveryView;
  /** Labels put on an inbound message by automation rules. */
  labels?: string[];
}

export interface DeliveryView extends RetryView {
  state: "queued" | "delivered" | "failed" | "held" | "cancelled";
}

/** The owner API's message record (inbox item or thread entry). */
export function messageView(row: MessageRow, ownAgentId: string | null, delivery?: typeof outbox.$inferSelect | null, inReplyToEnvelope?: string | null): MessageView {
  const inbound = row.direction === "in";
  const view: MessageView = {
    id: row.envelopeId,
    messageId: row.id,
    direction: inbound ? "inbound" : "outbound",
    from: inbound ? row.peerAgentId : ownAgentId,
    to: inbound ? ownAgentId : row.peerAgentId,
    intent: row.intent,
    payload: JSON.parse(row.payloadJson),
    correlationId: row.correlationId,
    conversationId: row.conversationId,
    protocol: row.protocol,
    sealed: row.sealed,
    status: row.status,
    createdAt: iso(row.createdAt)!,
    receivedAt: iso(row.receivedAt)!,
    expiresAt: iso(row.expiresAt),
    inReplyTo: inReplyToEnvelope ?? null,
    respondedAt: iso(row.respondedAt),
    pendingActionId: row.pendingActionId,
  };
  if (!inbound) {
    view.delivery = delivery
      ? { state: delivery.status, ...retryView(delivery) }
      : { state: row.status === "held" ? "held" : "cancelled", attempts: 0, nextAttemptAt: null, lastAttemptAt: null, lastStatus: null, lastError: null, deliveredAt: null };
  }
  return view;
}

