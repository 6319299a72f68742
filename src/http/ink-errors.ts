/**
 * HTTP status for each INK rejection reason (INK leaves statuses open [C12]; PRODUCT-SURFACE §1.9
 * and SPEC pin some): authentication failures 401, policy refusals 403, replays and id reuse 409,
 * rate limits 429, everything malformed 400.
 */
const STATUS: Record<string, number> = {
  body_too_large: 413,
  unsupported_media_type: 415,
  unknown_recipient: 404,
  rate_limited: 429,
  missing_authorization: 401,
  invalid_auth_scheme: 401,
  missing_sender: 401,
  invalid_from_field: 401,
  missing_timestamp: 401,
  invalid_timestamp: 401,
  timestamp_too_far_future: 401,
  timestamp_expired: 401,
  missing_nonce: 401,
  invalid_signature_base: 401,
  unresolvable_sender_key: 401,
  invalid_signature: 401,
  signature_verification_failed: 401,
  retired_key_for_live_auth: 401,
  invalid_body_signature: 401,
  nonce_replay: 409,
  duplicate_message_id: 409,
  nonce_store_error: 503,
  nonce_handling_required: 500,
  sender_blocked: 403,
  not_connected: 403,
  block_did_in_user_block_list: 403,
  block_recipient_not_accepting_foreign: 403,
  block_did_not_in_user_allow_list: 403,
  block_method_not_in_user_allow_list: 403,
  block_host_not_in_user_allow_list: 403,
  // Directory listings (docs/decisions/directory-listings.md)
  self_listing: 403,
  discovery_not_enabled: 403,
  // Discovery-query envelopes: INK §18's own reason codes
  signature: 401,
  audience: 403,
  expired: 401,
  not_yet_valid: 401,
  replay: 409,
};

const MESSAGES: Record<string, string> = {
  body_too_large: "the body exceeds 64 KiB",
  unsupported_media_type: "send the envelope as application/json",
  unknown_recipient: "no such agent on this node",
  rate_limited: "too many requests; retry later",
  missing_authorization: "an INK-Ed25519 Authorization header is required",
  invalid_auth_scheme: "the Authorization header does not match the INK-Ed25519 grammar",
  timestamp_too_far_future: "the timestamp is more than 30 s ahead",
  timestamp_expired: "the timestamp is more than 5 minutes old",
  missing_nonce: "a nonce of 16-256 characters [A-Za-z0-9_-] is required",
  unresolvable_sender_key: "the sender's keys could not be resolved",
  invalid_signature: "the signature does not verify",
  signature_verification_failed: "the signature does not verify under the sender's published keys",
  retired_key_for_live_auth: "signed with a retired key",
  invalid_body_signature: "the envelope signature does not verify",
  nonce_replay: "this nonce was already used",
  duplicate_message_id: "this message id was already used for another message",
  sender_blocked: "the recipient does not accept messages from this sender",
  not_connected: "only a connection_request is accepted from an agent that is not connected",
  unsupported_intent: "this receiver does not handle that intent",
  encryption_required: "this intent must be sent encrypted",
  recipient_mismatch: "`to` is not this agent",
  message_expired: "the message expired",
  invalid_listing: "the listing request is malformed",
  self_listing: "this is the directory's own agent; its owner publishes it through the owner API",
  unsupported_principal: "only key-derived agent ids and did:web agents can be listed",
  card_url_mismatch: "cardUrl is not the Agent Card URL of `from`",
  discovery_not_enabled: "the Agent Card's discovery descriptor does not opt in (enabled: true, scope public)",
  schema: "the discovery query envelope is malformed",
  signature: "the discovery query signature does not verify under the requester's keys",
  audience: "the discovery query is not addressed to this directory",
  expired: "the discovery query timestamp is more than 5 minutes old",
  not_yet_valid: "the discovery query timestamp is more than 30 s ahead",
  replay: "this (from, nonce) was already used",
};

export function inkStatus(reason: string): number {
  return STATUS[reason] ?? (reason.startsWith("block_") ? 403 : 400);
}

/** `{error, message}` plus INK's own fields (DESIGN: INK endpoints may add `protocol` and `code`). */
export function inkErrorBody(reason: string, detail?: string): { error: string; message: string; code: string; protocol: "ink/0.1" } {
  const base = MESSAGES[reason] ?? reason.replace(/_/g, " ");
  return { error: reason, code: reason, protocol: "ink/0.1", message: detail && inkStatus(reason) === 400 ? `${base}: ${detail}` : base };
}
