import * as v from "valibot";
import { ListingRequest } from "../../domain/peers/peer-requests.ts";
import { DiscoveryQueryEnvelope, IntentEnvelope } from "../../ink/index.ts";

// Request bodies of the INK routes, for the OpenAPI document only: those routes read the raw
// bytes and check them in INK's order themselves (INK §4.2, §9), never through these schemas.

/** ENCRYPTION §1: the outer envelope of a confidential intent (unknown members are tolerated). */
const SealedEnvelopeDoc = v.pipe(
  v.looseObject({
    protocol: v.literal("ink/0.1"),
    type: v.pipe(v.string(), v.description("network.<svc|tulpa|ink>.encrypted")),
    from: v.string(),
    ephemeralKey: v.string(),
    nonce: v.string(),
    ciphertext: v.string(),
    timestamp: v.string(),
    messageNonce: v.string(),
  }),
  v.description("Sealed envelope (ENCRYPTION §1): the signed intent envelope, encrypted to the recipient"),
);

export const InkEnvelopeBodyDoc = v.pipe(
  v.union([v.pipe(IntentEnvelope, v.description("Intent envelope (INK §3.1), body-signed")), SealedEnvelopeDoc]),
  v.description("An INK envelope, plain or sealed, with an INK-Ed25519 transport signature in Authorization (at most 64 KiB)"),
);

export const CardQueryBodyDoc = v.pipe(
  v.looseObject({
    protocol: v.literal("ink/0.1"),
    type: v.pipe(v.string(), v.description("network.<svc|tulpa|ink>.agent_card_query")),
    from: v.pipe(v.string(), v.description("The requester's agent id")),
    to: v.optional(v.pipe(v.string(), v.description("This node's agent id"))),
    nonce: v.string(),
    timestamp: v.string(),
  }),
  v.description("Agent-card query, covered by the transport signature only (at most 64 KiB)"),
);

export const ListingBodyDoc = v.pipe(ListingRequest, v.description("Directory listing request, covered by the transport signature only (at most 64 KiB)"));

export const DiscoveryQueryBodyDoc = v.pipe(DiscoveryQueryEnvelope, v.description("Signed discovery-query envelope (body signature)"));

export const ReceiptBodyDoc = v.pipe(
  v.looseObject({
    protocol: v.literal("ink/0.1"),
    type: v.pipe(v.string(), v.description("network.<svc|tulpa|ink>.receipt")),
    from: v.pipe(v.string(), v.description("The agent that received the message (the receipt's issuer)")),
    to: v.pipe(v.string(), v.description("This node's agent id (the message's sender)")),
    messageId: v.pipe(v.string(), v.description("The envelope id of the message this node sent")),
    disposition: v.picklist(["received", "delivered", "acted", "rejected", "expired"]),
    dispositionAt: v.string(),
    note: v.optional(v.string()),
    messageHash: v.pipe(v.string(), v.description("SHA-256 hex of JCS of the message as received")),
    nonce: v.string(),
    timestamp: v.string(),
    signature: v.optional(v.pipe(v.string(), v.description("INK body signature of the issuer (optional: the transport signature authenticates it)"))),
  }),
  v.description("Delivery receipt (AUDIT §1) under an INK transport signature over /ink/v1/receipt"),
);

export const AuditQueryBodyDoc = v.pipe(
  v.looseObject({
    protocol: v.literal("ink/0.1"),
    type: v.pipe(v.string(), v.description("network.<svc|tulpa|ink>.audit_query")),
    from: v.string(),
    to: v.pipe(v.string(), v.description("This node's agent id")),
    messageId: v.pipe(v.string(), v.description("A message the requester sent to or received from this agent")),
    nonce: v.string(),
    timestamp: v.string(),
  }),
  v.description("Audit query (AUDIT §4) under an INK transport signature over /ink/v1/audit"),
);
