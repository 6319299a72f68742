/**
 * Kith's INK protocol core: pure functions over bytes and JSON values. No clock reads, no I/O,
 * no globals: time, keys, nonce stores and the wordmark are parameters. Results are
 * discriminated unions `{ ok: true, … } | { ok: false, reason }` using INK's reason codes.
 * Functions that take wire input never throw.
 */

// ── Wordmark ─────────────────────────────────────────────────────────────────────────────────
/**
 * `"svc" | "tulpa"` and the `network.<wordmark>.*` message-type helpers.
 * @example messageType("encrypted", "svc") // "network.svc.encrypted"
 */
export { type Wordmark, WORDMARKS, isWordmark, messageType, isAcceptedMessageType } from "./wordmark.ts";

// ── Keys and principals ──────────────────────────────────────────────────────────────────────
/**
 * Multibase public keys (`z` + base58btc(multicodec ‖ key)).
 * @example encodeEd25519PublicKey(pk) // "z6Mk…"; decodeMultibaseKey("z6LS…") // { kind: "x25519", key }
 */
export {
  type KeyKind,
  type DecodedKey,
  encodeEd25519PublicKey,
  encodeX25519PublicKey,
  decodeMultibaseKey,
  decodeEd25519PublicKey,
  decodeX25519PublicKey,
} from "./multibase.ts";
/**
 * Agent ids and canonical principals (INK §2).
 * @example deriveAgentId(pk, "svc") // "svc:z6Mk…"
 * @example normalizePrincipal("ink:z6Mk…") // { ok: true, principal: "key:z6Mk…" }
 */
export {
  type NormalizeResult,
  KEY_DERIVED_PREFIXES,
  deriveAgentId,
  normalizePrincipal,
  agentIdPublicKey,
  isReservedPrincipalSpelling,
} from "./principal.ts";

// ── Canonical JSON, raw-body gate, timestamps ────────────────────────────────────────────────
/**
 * RFC 8785 JCS with INK's safe-integer profile and complexity bounds.
 * @example canonicalize({ b: 1, a: "x" }) // { ok: true, text: '{"a":"x","b":1}' }
 */
export { type CanonicalResult, type CanonicalFailure, JCS_LIMITS, canonicalize, canonicalizePair } from "./jcs.ts";
/**
 * The raw-body gate on bytes (INK §4.2): size, UTF-8, surrogates, number range, member names, parse.
 * @example parseRawBody(new TextEncoder().encode('{"a":1e309}')) // { ok: false, reason: "number-range" }
 */
export { type GateResult, type GateFailure, DEFAULT_MAX_BODY_BYTES, parseRawBody } from "./raw-body.ts";
/**
 * Strict timestamps → epoch ms, and the freshness window.
 * @example parseTimestamp("2026-01-01T00:00:00.000Z") // 1767225600000
 * @example checkFreshness(ts, now) // "fresh" | "timestamp_expired" | "timestamp_too_far_future"
 */
export {
  type Freshness,
  MAX_AGE_MS,
  MAX_FUTURE_MS,
  parseTimestamp,
  parseHandshakeTimestamp,
  checkFreshness,
  formatTimestamp,
} from "./timestamp.ts";

// ── Intents and payloads ─────────────────────────────────────────────────────────────────────
/**
 * Registered / core / confidential intents, the open intent grammar and the disposition order.
 * @example checkIntentDisposition({ intent: "schedule_meeting" }, ["ping"]) // { ok: false, reason: "unsupported_intent" }
 */
export {
  type RegisteredIntent,
  type IntentDisposition,
  REGISTERED_INTENTS,
  CORE_INTENTS,
  CONFIDENTIAL_INTENTS,
  isRegisteredIntent,
  isValidIntentName,
  isConfidentialIntent,
  isIntentSupported,
  checkIntentDisposition,
  checkPlaintextConfidentiality,
} from "./intents.ts";
/**
 * Strict valibot schemas of every registered intent payload, the profile snapshot and the
 * connection payloads (INK §3.3, §15).
 * @example validateIntentPayload("ping", { note: "hi" }) // { ok: true }
 */
export {
  type PayloadCheck,
  ProfileSnapshot,
  ProfileAvailability,
  ConnectionRequestPayload,
  ConnectionResponsePayload,
  INTENT_PAYLOAD_SCHEMAS,
  validateIntentPayload,
  validateConnectionPayload,
} from "./payloads.ts";

// ── Cards, URLs, hosts ───────────────────────────────────────────────────────────────────────
/**
 * Agent Card validation (INK §11); the returned card is the input object, unknown members kept.
 * @example validateAgentCard(json) // { ok: true, card } | { ok: false, reason: "invalid_card", issue }
 */
export { type CardValidation, type Visibility, AgentCard, CardKeyEntry, CardDiscovery, validateAgentCard } from "./agent-card.ts";
/**
 * Endpoint URL grammar and the signature-base PATH of an endpoint.
 * @example endpointPath("https://a.example/ink/v1/inbound?x=1") // "/ink/v1/inbound"
 */
export { isValidEndpointUrl, endpointPath, endpointHostname } from "./endpoint-url.ts";
/**
 * SSRF host gate (INK §14).
 * @example classifyHost("169.254.169.254") // "private"
 */
export { type HostClass, classifyHost, isPublicHostname } from "./hostname.ts";
