// Rejection reasons of the inbound decision. Transport codes are INK §6.4's; gate codes the
// reference's (§4.2); the rest name checks INK requires but gives no code for
// (docs/decisions/ink-receiver.md lists which is which).
import type { AuthHeaderReason } from "./auth-header.ts";
import type { EnvelopeReason } from "./envelope.ts";
import type { GateFailure } from "./raw-body.ts";

export type InboundReason =
  // raw-body gate (INK §4.2)
  | GateFailure
  // structure and disposition (INK §3, §9 steps 4–6; ENCRYPTION §6)
  | EnvelopeReason
  | "unsupported_intent"
  | "encryption_required"
  | "invalid_payload"
  | "recipient_mismatch"
  | "encryption_unsupported"
  | "invalid_outer_envelope"
  // transport authentication (INK §6.4)
  | AuthHeaderReason
  | "missing_sender"
  | "invalid_from_field"
  | "missing_timestamp"
  | "invalid_timestamp"
  | "timestamp_too_far_future"
  | "timestamp_expired"
  | "nonce_handling_required"
  | "missing_nonce"
  | "invalid_signature_base"
  | "unresolvable_sender_key"
  | "invalid_signature"
  | "signature_verification_failed"
  | "retired_key_for_live_auth"
  // after transport auth
  | "invalid_body_signature"
  | "decrypt_failed"
  | "nonce_replay"
  | "nonce_store_error";
