import type { DiscoveryQueryOutcome } from "../domain/discovery/answer-discovery-query.ts";
import type { ListingReason } from "../domain/discovery/receive-listing.ts";
import type { CardQueryResult } from "../domain/agent-card/query-agent-card.ts";
import type { ReceiveReason } from "../domain/inbox/receive-intent.ts";
import type { MailboxIntakeReason } from "../domain/mailbox/accept-mailbox-message.ts";
import type { DrainOutcome } from "../domain/mailbox/drain-mailbox-items.ts";
import type { ReceiveReceiptReason } from "../domain/receipts/receive-receipt.ts";
import type { AuditQueryOutcome } from "../domain/audit/answer-audit-query.ts";

/** Every reason an INK endpoint can answer: the edge's, the authentication's and each verb's. */
export type InkReason =
  | ReceiveReason
  | Extract<CardQueryResult, { ok: false }>["reason"]
  | ListingReason
  | Extract<DiscoveryQueryOutcome, { ok: false }>["reason"]
  | MailboxIntakeReason
  | Extract<DrainOutcome, { ok: false }>["reason"]
  | ReceiveReceiptReason
  | Extract<AuditQueryOutcome, { ok: false }>["reason"]
  | "unsupported_media_type";

/**
 * HTTP status and message of each INK rejection reason, closed: a reason without a row does not
 * compile. INK leaves statuses open [C12]; PRODUCT-SURFACE §1.9 and SPEC pin some: authentication
 * failures 401, policy refusals 403, replays and id reuse 409, rate limits 429, everything
 * malformed 400; directory listings follow docs/decisions/directory-listings.md and discovery
 * queries INK §18's own reason codes. A message that only spells out the code is the code's words.
 */
const INK_ERRORS: Record<InkReason, { status: number; message: string }> = {
  body_too_large: { status: 413, message: "the body exceeds 64 KiB" },
  "utf8": { status: 400, message: "utf8" },
  surrogate: { status: 400, message: "surrogate" },
  "number-range": { status: 400, message: "number-range" },
  "member-name-escape": { status: 400, message: "member-name-escape" },
  invalid_json: { status: 400, message: "invalid json" },
  invalid_envelope: { status: 400, message: "invalid envelope" },
  unsupported_protocol_version: { status: 400, message: "unsupported protocol version" },
  unsupported_intent: { status: 400, message: "this receiver does not handle that intent" },
  encryption_required: { status: 400, message: "this intent must be sent encrypted" },
  invalid_payload: { status: 400, message: "invalid payload" },
  recipient_mismatch: { status: 400, message: "`to` is not this agent" },
  encryption_unsupported: { status: 400, message: "encryption unsupported" },
  invalid_outer_envelope: { status: 400, message: "invalid outer envelope" },
  missing_authorization: { status: 401, message: "an INK-Ed25519 Authorization header is required" },
  invalid_auth_scheme: { status: 401, message: "the Authorization header does not match the INK-Ed25519 grammar" },
  missing_sender: { status: 401, message: "missing sender" },
  invalid_from_field: { status: 401, message: "invalid from field" },
  missing_timestamp: { status: 401, message: "missing timestamp" },
  invalid_timestamp: { status: 401, message: "invalid timestamp" },
  timestamp_too_far_future: { status: 401, message: "the timestamp is more than 30 s ahead" },
  timestamp_expired: { status: 401, message: "the timestamp is more than 5 minutes old" },
  nonce_handling_required: { status: 500, message: "nonce handling required" },
  missing_nonce: { status: 401, message: "a nonce of 16-256 characters [A-Za-z0-9_-] is required" },
  invalid_signature_base: { status: 401, message: "invalid signature base" },
  unresolvable_sender_key: { status: 401, message: "the sender's keys could not be resolved" },
  invalid_signature: { status: 401, message: "the signature does not verify" },
  signature_verification_failed: { status: 401, message: "the signature does not verify under the sender's published keys" },
  retired_key_for_live_auth: { status: 401, message: "signed with a retired key" },
  invalid_body_signature: { status: 401, message: "the envelope signature does not verify" },
  decrypt_failed: { status: 400, message: "decrypt failed" },
  nonce_replay: { status: 409, message: "this nonce was already used" },
  nonce_store_error: { status: 503, message: "nonce store error" },
  schema: { status: 400, message: "the discovery query envelope is malformed" },
  signature: { status: 401, message: "the discovery query signature does not verify under the requester's keys" },
  audience: { status: 403, message: "the discovery query is not addressed to this directory" },
  expired: { status: 401, message: "the discovery query timestamp is more than 5 minutes old" },
  not_yet_valid: { status: 401, message: "the discovery query timestamp is more than 30 s ahead" },
  replay: { status: 409, message: "this (from, nonce) was already used" },
  unknown_recipient: { status: 404, message: "no such agent on this node" },
  sender_blocked: { status: 403, message: "the recipient does not accept messages from this sender" },
  invalid_listing: { status: 400, message: "the listing request is malformed" },
  invalid_review: { status: 400, message: "the marketplace review request is malformed" },
  self_listing: { status: 403, message: "this is the directory's own agent; its owner publishes it through the owner API" },
  unsupported_principal: { status: 400, message: "only key-derived agent ids and did:web agents can be listed" },
  card_url_mismatch: { status: 400, message: "cardUrl is not the Agent Card URL of `from`" },
  rate_limited: { status: 429, message: "too many requests; retry later" },
  not_connected: { status: 403, message: "only a connection_request is accepted from an agent that is not connected" },
  message_expired: { status: 400, message: "the message expired" },
  duplicate_message_id: { status: 409, message: "this message id was already used for another message" },
  block_did_in_user_block_list: { status: 403, message: "block did in user block list" },
  block_recipient_not_accepting_foreign: { status: 403, message: "block recipient not accepting foreign" },
  block_did_not_in_user_allow_list: { status: 403, message: "block did not in user allow list" },
  block_method_not_in_user_allow_list: { status: 403, message: "block method not in user allow list" },
  block_host_not_in_user_allow_list: { status: 403, message: "block host not in user allow list" },
  discovery_not_enabled: { status: 403, message: "the Agent Card's discovery descriptor does not opt in (enabled: true, scope public)" },
  unsupported_media_type: { status: 415, message: "send the envelope as application/json" },
  mailbox_full: { status: 429, message: "the recipient's mailbox is full until its agent collects it; retry later" },
  not_mailbox_agent: { status: 403, message: "only the mailbox's own agent may do this" },
  invalid_card: { status: 400, message: "the card is not one peers would accept for this mailbox" },
  malformed_receipt: { status: 400, message: "the receipt is malformed" },
  from_mismatch: { status: 400, message: "the receipt's from is not the agent that received the message" },
  to_mismatch: { status: 400, message: "the receipt's to is not this agent" },
  message_id_mismatch: { status: 400, message: "message id mismatch" },
  disposition_mismatch: { status: 400, message: "disposition mismatch" },
  message_hash_mismatch: { status: 400, message: "messageHash is not the hash of the message this node sent" },
  unknown_message: { status: 404, message: "no message with this id was sent to you" },
  access_denied: { status: 403, message: "only the sender or the recipient of a message may query its audit events" },
};

/** An INK refusal on its way to the app's one error handler (plugins/errors.ts), which answers it with the INK error body. */
export class InkRefusal extends Error {
  constructor(
    readonly reason: InkReason,
    readonly detail?: string,
    readonly retryAfterSeconds?: number,
  ) {
    super(reason);
    this.name = "InkRefusal";
  }
}

export function inkStatus(reason: InkReason): number {
  return INK_ERRORS[reason].status;
}

/** `{error, message}` plus INK's own fields (DESIGN: INK endpoints may add `protocol` and `code`); a 400's detail is appended. */
export function inkErrorBody(reason: InkReason, detail?: string): { error: string; message: string; code: string; protocol: "ink/0.1" } {
  const { status, message } = INK_ERRORS[reason];
  return { error: reason, code: reason, protocol: "ink/0.1", message: detail && status === 400 ? `${message}: ${detail}` : message };
}

/** The answer to an INK refusal: its status, the INK error body, and Retry-After when it says when to retry. */
export function inkErrorResponse(refusal: InkRefusal): Response {
  const headers = refusal.retryAfterSeconds ? { headers: { "retry-after": String(refusal.retryAfterSeconds) } } : {};
  return Response.json(inkErrorBody(refusal.reason, refusal.detail), { status: inkStatus(refusal.reason), ...headers });
}
