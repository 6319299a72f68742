import * as v from "valibot";
import type { DiscoveryQueryEnvelope, DiscoveryQueryReason, InboundReason, IntentEnvelope } from "../../ink/index.ts";
import type { AgentActor } from "../context.ts";
import type { PeerCardUpdate } from "./peer-cards.ts";
import type { SignedInkEvent } from "../internal/ink-events-ahead.ts";

/**
 * The signed INK requests a node answers, as authenticate-peer.ts reads them. Each has its own
 * checks before the signature (INK's order for it) and its own key source; all four end in an
 * `agent` actor whose nonce the answering verb records last, in its own transaction.
 */
export type PeerScheme = "intent" | "agent_card_query" | "directory_listing" | "discovery_query" | "marketplace_review" | "receipt" | "audit_query";

/** One signed request as it came in: the raw body, read once (http/plugins/ink-signature.ts). */
export interface SignedPeerRequest<S extends PeerScheme = PeerScheme> {
  scheme: S;
  /** The agent id in the path (intents, card queries); anything but this node's agent is unknown here. */
  pathAgentId: string | null;
  body: Uint8Array;
  authorization: string | null;
  /** The path actually posted to (the signature base's PATH). */
  requestPath: string;
  /**
   * When the request reached the node's endpoint, if not now: a request held by a mailbox is
   * judged fresh (INK §8) at the time the mailbox accepted it (docs/decisions/mailbox.md).
   */
  receivedAt?: number;
}

/** What each kind of request carries once authenticated. */
export interface PeerRequests {
  intent: {
    /** The plaintext envelope, or the decrypted inner one when it came sealed. */
    envelope: IntentEnvelope;
    sealed: boolean;
    /** The key that verified it (`bootstrap`: the genesis key of a key-derived id, no card known). */
    keyId: string;
    /** Its nonce was already recorded: what it makes the node do must not cost a fetch. */
    replayed: boolean;
    /** Its `message.received` audit event, signed on a worker beside its verifies (null: none was). */
    audit?: Promise<SignedInkEvent | null> | null;
  };
  agent_card_query: Record<string, never>;
  directory_listing: ListingRequest;
  discovery_query: DiscoveryQueryEnvelope;
  marketplace_review: MarketplaceReviewRequest;
  /** A delivery receipt (AUDIT §1), as received; its own checks are the receipt verb's. */
  receipt: Record<string, unknown>;
  /** An audit query (AUDIT §4): the message whose lifecycle events are asked for. */
  audit_query: { messageId: string };
}

/** An authenticated request: the sender, what it asked, and what was learned of its card (to save with the answer). */
export interface AuthenticatedPeer<S extends PeerScheme = PeerScheme> {
  ok: true;
  actor: AgentActor;
  request: PeerRequests[S];
  learned: PeerCardUpdate | null;
}

export type PeerRefusalReason =
  | InboundReason
  | DiscoveryQueryReason
  | "unknown_recipient"
  | "sender_blocked"
  | "invalid_listing"
  | "self_listing"
  | "unsupported_principal"
  | "card_url_mismatch"
  | "invalid_review";

export interface PeerRefusal {
  ok: false;
  reason: PeerRefusalReason;
  detail?: string;
}

/** The largest directory-listing request read (docs/decisions/directory-listings.md). */
export const MAX_LISTING_BYTES = 65_536;

/**
 * The directory-listing request (docs/decisions/directory-listings.md): strict, covered by the
 * INK transport signature only. `type` is checked by the signed-request phase (dual spelling).
 */
export const ListingRequest = v.strictObject({
  protocol: v.literal("ink/0.1"),
  type: v.string(),
  action: v.picklist(["publish", "unpublish"], "action: publish or unpublish"),
  from: v.pipe(v.string(), v.minLength(1), v.maxLength(256)),
  to: v.pipe(v.string(), v.minLength(1), v.maxLength(512)),
  cardUrl: v.pipe(v.string(), v.maxLength(2048), v.startsWith("https://", "cardUrl: an https URL")),
  nonce: v.string(),
  timestamp: v.string(),
});
export type ListingRequest = v.InferOutput<typeof ListingRequest>;

/** The largest marketplace review request read. */
export const MAX_REVIEW_BYTES = 4096;

/**
 * A rating from another node's agent for an extension in this node's marketplace: strict, under
 * an INK transport signature by `from` (`type` network.<w>.marketplace_review, checked by the
 * signed-request phase), so one agent is one vote and nobody rates as someone else.
 */
export const MarketplaceReviewRequest = v.strictObject({
  protocol: v.literal("ink/0.1"),
  type: v.string(),
  from: v.pipe(v.string(), v.minLength(1), v.maxLength(256)),
  to: v.pipe(v.string(), v.minLength(1), v.maxLength(512)),
  nonce: v.string(),
  timestamp: v.string(),
  extensionId: v.pipe(v.string(), v.minLength(1), v.maxLength(128)),
  rating: v.pipe(v.number(), v.integer("rating: an integer from 1 to 5"), v.minValue(1, "rating: at least 1"), v.maxValue(5, "rating: at most 5")),
  comment: v.optional(v.pipe(v.string(), v.maxLength(1000, "comment: at most 1000 characters"))),
});
export type MarketplaceReviewRequest = v.InferOutput<typeof MarketplaceReviewRequest>;
