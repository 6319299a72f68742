// Handshake messages of the containment profile (INK §17): challenge / rejection / resolution.
// Tolerant objects (unknown members ignored), no embedded signature: authenticity is the
// transport signature, whose PATH binds the message kind (a /challenge signature fails at /rejection).
import * as v from "valibot";
import { type Ed25519Verifier, nobleStrictVerifier } from "./ed25519.ts";
import { check, loose, positiveInt, str, text } from "./schema-kit.ts";
import { parseHandshakeTimestamp } from "./timestamp.ts";
import { type SignInput, verifyTransportSignature } from "./transport.ts";
import { isAcceptedMessageType, type Wordmark } from "./wordmark.ts";

export type HandshakeKind = "challenge" | "rejection" | "resolution";

const handshakeTimestamp = v.pipe(v.string(), v.check((s) => parseHandshakeTimestamp(s) !== null, "handshake timestamp"));
const common = {
  protocol: v.literal("ink/0.1"),
  type: v.string(),
  intentRef: text(256),
  // [C13]: handshake nonces are only capped, not held to the 16-char replay grammar.
  nonce: text(256),
  timestamp: handshakeTimestamp,
};
const shortList = (max: number) => v.optional(v.pipe(v.array(str(max)), v.maxLength(32)));

export const HandshakeChallenge = loose({
  ...common,
  challengeType: v.picklist(["mutual_connection_proof", "identity_verification", "availability_query", "context_request", "none"]),
  fields: shortList(256),
  contextFields: shortList(256),
  availableWindows: shortList(64),
});

export const HandshakeRejection = loose({
  ...common,
  reason: v.picklist([
    "policy_violation",
    "trust_threshold",
    "capacity",
    "unsupported_intent",
    "rate_limited",
    "expired",
    "handshake_budget_exhausted",
    "counterparty_cooldown",
    "sender_rate_limited",
    "delegation_budget_exhausted",
    "transport_scope_violation",
  ]),
  detail: v.optional(str(500)),
  retryAfter: v.optional(str(64)),
  backoffHint: v.optional(
    loose({
      retryAfterSeconds: v.optional(positiveInt),
      cooldownUntil: v.optional(handshakeTimestamp),
      backoffClass: v.optional(v.picklist(["sender", "intent_ref", "counterparty"])),
    }),
  ),
});

export const HandshakeResolution = loose({
  ...common,
  outcome: v.picklist(["accepted", "declined", "escalated_to_human", "expired"]),
  details: v.optional(loose({ scheduledAt: v.optional(str(64)), duration: v.optional(str(64)) })),
  counterpartyDid: v.optional(str(512)),
});

const SCHEMAS = { challenge: HandshakeChallenge, rejection: HandshakeRejection, resolution: HandshakeResolution } as const;

export type HandshakeResult =
  | { ok: true; kind: HandshakeKind; message: Record<string, unknown> }
  | { ok: false; reason: "invalid_handshake" | "unsupported_intent"; issue: string };

/**
 * Validate a handshake message. Its kind comes from `type` (`network.<wordmark>.*` or
 * `network.ink.*`); an unknown type answers `unsupported_intent` as INK §3.4 prescribes.
 */
export function validateHandshakeMessage(message: unknown, wordmark: Wordmark): HandshakeResult {
  const type = (message as { type?: unknown } | null)?.type;
  const kind = (["challenge", "rejection", "resolution"] as const).find((k) => isAcceptedMessageType(type, k, wordmark));
  if (kind === undefined) return { ok: false, reason: "unsupported_intent", issue: "type" };
  const r = check(SCHEMAS[kind], message);
  return r.ok ? { ok: true, kind, message: message as Record<string, unknown> } : { ok: false, reason: "invalid_handshake", issue: r.issue };
}

export type SignedHandshakeResult = HandshakeResult | { ok: false; reason: "invalid_signature"; issue: string };

/**
 * A delivered handshake message (INK §17, H5/H6): the schema, then the §6 transport signature over
 * the body exactly as delivered, for the path and recipient it was delivered to. An embedded
 * `signature` member is an ignored unknown member, never provenance; both checks must pass.
 */
export function verifySignedHandshake(
  input: { signInput: SignInput; signature: unknown; publicKey: Uint8Array },
  wordmark: Wordmark,
  verifier: Ed25519Verifier = nobleStrictVerifier,
): SignedHandshakeResult {
  const shape = validateHandshakeMessage(input.signInput?.body, wordmark);
  if (!shape.ok) return shape;
  if (input.signInput.timestamp !== shape.message.timestamp) return { ok: false, reason: "invalid_handshake", issue: "the transport timestamp must be the body's timestamp" };
  if (!verifyTransportSignature(input.signInput, input.signature, input.publicKey, verifier)) return { ok: false, reason: "invalid_signature", issue: "the transport signature does not verify" };
  return shape;
}
