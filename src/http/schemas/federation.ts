import * as v from "valibot";
import { DUNBAR_LAYERS, HEALTH_BANDS } from "../../domain/relationships/names.ts";

const ts = (description: string) => v.pipe(v.string(), v.description(description));
const nts = (description: string) => v.pipe(v.nullable(v.string()), v.description(description));

export const DeliveryDoc = v.pipe(
  v.object({
    state: v.picklist(["queued", "delivered", "failed", "held", "cancelled"]),
    attempts: v.number(),
    nextAttemptAt: nts("When the next attempt is due (queued only)"),
    lastAttemptAt: nts("RFC 3339"),
    lastStatus: v.nullable(v.number()),
    lastError: nts("Why the last attempt failed (network error or the peer's INK error code)"),
    deliveredAt: nts("RFC 3339"),
  }),
  v.description("Delivery state of an outbound message"),
);

export const MessageDoc = v.pipe(
  v.object({
    id: ts("The envelope id, exactly as on the wire"),
    messageId: ts("This node's own id of the row (msg_…)"),
    direction: v.picklist(["inbound", "outbound"]),
    from: nts("Sender agent id"),
    to: nts("Recipient agent id"),
    intent: v.string(),
    payload: v.record(v.string(), v.unknown()),
    correlationId: v.string(),
    conversationId: v.string(),
    protocol: v.string(),
    sealed: v.pipe(v.boolean(), v.description("Arrived inside an encrypted envelope")),
    status: ts("inbound: unread, read, pending (held for the owner), responded, rejected, expired; outbound: queued, delivered, failed, held, cancelled"),
    createdAt: v.string(),
    receivedAt: v.string(),
    expiresAt: v.nullable(v.string()),
    inReplyTo: nts("Envelope id of the request this answers"),
    respondedAt: v.nullable(v.string()),
    pendingActionId: v.nullable(v.string()),
    delivery: v.optional(DeliveryDoc),
    labels: v.optional(v.pipe(v.array(v.string()), v.description("Labels put on an inbound message by automation rules"))),
    receipts: v.optional(
      v.pipe(
        v.array(v.object({ disposition: v.string(), dispositionAt: v.string(), receivedAt: v.string(), receipt: v.record(v.string(), v.unknown()) })),
        v.description("Delivery receipts the recipient sent for an outbound message (AUDIT §1), verified against the message as sent"),
      ),
    ),
  }),
  v.description("Inbox message / thread entry"),
);

export const ConnectionDoc = v.pipe(
  v.object({
    id: v.string(),
    agentId: v.nullable(v.string()),
    handle: v.nullable(v.string()),
    displayName: v.nullable(v.string()),
    status: ts("pending (they asked), requested (we asked), connected, declined, blocked, disconnected, contact"),
    initiatedBy: v.picklist(["us", "them"]),
    cardUrl: v.nullable(v.string()),
    profileSnapshot: v.nullable(v.record(v.string(), v.unknown())),
    createdAt: v.string(),
    updatedAt: v.string(),
    connectedAt: v.nullable(v.string()),
    lastMessageAt: v.nullable(v.string()),
    layer: v.pipe(v.picklist(DUNBAR_LAYERS), v.description("Dunbar layer in force: the owner's override, else the computed one")),
    layerOverride: v.pipe(v.nullable(v.picklist(DUNBAR_LAYERS)), v.description("Set by PATCH {layer}; sticks until cleared with {layer: null}")),
    computedLayer: v.pipe(v.picklist(DUNBAR_LAYERS), v.description("From interaction history (frequency, recency, meetings, reciprocity)")),
    health: v.pipe(v.nullable(v.picklist(HEALTH_BANDS)), v.description("Private health band; never shown to peers or on the card")),
    healthScore: v.pipe(v.nullable(v.number()), v.description("0–1; bands: strong ≥0.75, healthy ≥0.55, cooling ≥0.35, at_risk ≥0.2, else dormant")),
    healthFactors: v.pipe(v.nullable(v.record(v.string(), v.number())), v.description("closeness, frequency, recency, volume, reciprocity, trend, bridge, gapDays, cadenceDays")),
    source: v.pipe(v.picklist(["ink", "linkedin"]), v.description("ink: known through INK traffic; linkedin: imported contact (no agent id)")),
    email: v.nullable(v.string()),
    company: v.nullable(v.string()),
    position: v.nullable(v.string()),
    linkedinUrl: v.nullable(v.string()),
  }),
  v.description("Connection"),
);

export const ConversationDoc = v.object({
  id: v.string(),
  correlationId: v.string(),
  subject: v.nullable(v.string()),
  peer: v.object({ agentId: v.nullable(v.string()), handle: v.nullable(v.string()), displayName: v.nullable(v.string()), connectionId: v.nullable(v.string()), principal: v.string() }),
  messageCount: v.number(),
  lastMessageAt: v.string(),
  createdAt: v.string(),
});

export const ConversationDetailDoc = v.object({ ...ConversationDoc.entries, messages: v.array(MessageDoc) });

export const PendingActionDoc = v.pipe(
  v.object({
    id: v.string(),
    kind: v.picklist(["inbound_intent", "connection_request", "outbound_intent"]),
    status: v.picklist(["pending", "approved", "rejected"]),
    reason: v.string(),
    message: v.nullable(MessageDoc),
    connectionId: v.nullable(v.string()),
    action: v.pipe(v.unknown(), v.description("What approval runs (e.g. a drafted reply)")),
    result: v.unknown(),
    createdAt: v.string(),
    decidedAt: v.nullable(v.string()),
  }),
  v.description("Pending action"),
);

export const SendResultDoc = v.object({
  id: ts("The envelope id exactly as sent on the wire"),
  correlationId: v.string(),
  status: v.literal("queued"),
  messageId: v.string(),
  conversationId: v.string(),
  peerPrincipal: v.string(),
});

/** A page of a list: `nextCursor` is passed back as `cursor` for the next page. */
export function pageDoc<T extends v.GenericSchema>(item: T) {
  return v.object({ items: v.array(item), nextCursor: v.pipe(v.nullable(v.string()), v.description("Opaque cursor of the next page; null on the last")) });
}
