import type { connections, DunbarLayer, HealthBand, outbox, pendingActions } from "../../db/schema/index.ts";
import type { MessageRow } from "../internal/message-rows.ts";

const iso = (ms: number | null | undefined) => (ms === null || ms === undefined ? null : new Date(ms).toISOString());

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

export interface DeliveryView {
  state: "queued" | "delivered" | "failed" | "held" | "cancelled";
  attempts: number;
  nextAttemptAt: string | null;
  lastAttemptAt: string | null;
  lastStatus: number | null;
  lastError: string | null;
  deliveredAt: string | null;
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
      ? {
          state: delivery.status,
          attempts: delivery.attempts,
          nextAttemptAt: delivery.status === "queued" ? iso(delivery.nextAttemptAt) : null,
          lastAttemptAt: iso(delivery.lastAttemptAt),
          lastStatus: delivery.lastStatus,
          lastError: delivery.lastError,
          deliveredAt: iso(delivery.deliveredAt),
        }
      : { state: row.status === "held" ? "held" : "cancelled", attempts: 0, nextAttemptAt: null, lastAttemptAt: null, lastStatus: null, lastError: null, deliveredAt: null };
  }
  return view;
}

export interface ConnectionView {
  id: string;
  agentId: string | null;
  handle: string | null;
  displayName: string | null;
  status: string;
  initiatedBy: "us" | "them";
  cardUrl: string | null;
  profileSnapshot: Record<string, unknown> | null;
  createdAt: string;
  updatedAt: string;
  connectedAt: string | null;
  lastMessageAt: string | null;
  /** The layer in force: the owner's override, else the computed one. Owner API only. */
  layer: DunbarLayer;
  layerOverride: DunbarLayer | null;
  computedLayer: DunbarLayer;
  /** Private health band (never shown to peers or on the card); null until first computed. */
  health: HealthBand | null;
  healthScore: number | null;
  healthFactors: Record<string, number> | null;
  source: "ink" | "linkedin";
  email: string | null;
  company: string | null;
  position: string | null;
  linkedinUrl: string | null;
}

export function connectionView(row: typeof connections.$inferSelect): ConnectionView {
  return {
    id: row.id,
    agentId: row.agentId,
    handle: row.handle,
    displayName: row.displayName,
    status: row.status,
    initiatedBy: row.initiatedBy,
    cardUrl: row.cardUrl,
    profileSnapshot: row.profileSnapshotJson ? JSON.parse(row.profileSnapshotJson) : null,
    createdAt: iso(row.createdAt)!,
    updatedAt: iso(row.updatedAt)!,
    connectedAt: iso(row.connectedAt),
    lastMessageAt: iso(row.lastMessageAt),
    layer: row.layerOverride ?? row.layer,
    layerOverride: row.layerOverride,
    computedLayer: row.layer,
    health: row.health,
    healthScore: row.healthScore,
    healthFactors: row.relationshipJson ? JSON.parse(row.relationshipJson) : null,
    source: row.source,
    email: row.email,
    company: row.company,
    position: row.position,
    linkedinUrl: row.linkedinUrl,
  };
}

export interface PendingActionView {
  id: string;
  kind: (typeof pendingActions.$inferSelect)["kind"];
  status: (typeof pendingActions.$inferSelect)["status"];
  reason: string;
  message: MessageView | null;
  connectionId: string | null;
  action: unknown;
  result: unknown;
  createdAt: string;
  decidedAt: string | null;
}

export function pendingActionView(row: typeof pendingActions.$inferSelect, message: MessageView | null): PendingActionView {
  return {
    id: row.id,
    kind: row.kind,
    status: row.status,
    reason: row.reason,
    message,
    connectionId: row.connectionId,
    action: row.actionJson ? JSON.parse(row.actionJson) : null,
    result: row.resultJson ? JSON.parse(row.resultJson) : null,
    createdAt: iso(row.createdAt)!,
    decidedAt: iso(row.decidedAt),
  };
}
