/**
 * Kith's INK protocol core: pure functions over bytes and JSON values. No clock reads, no I/O,
 * no globals: time, keys, nonce stores and the wordmark are parameters. Results are
 * discriminated unions `{ ok: true, … } | { ok: false, reason }` using INK's reason codes.
 * Functions that take wire input never throw (test/ink/fuzz.test.ts); key encoders and raw
 * signers (`encodeEd25519PublicKey`, `ed25519Sign`, …) throw a TypeError on programmer misuse
 * such as a 31-byte key.
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

// ── Ed25519, signatures, headers ─────────────────────────────────────────────────────────────
/**
 * Strict Ed25519: the `Ed25519Verifier` backend type, the noble default, and the wrapper that
 * makes any fast verify strict (S < L, canonical non-small-order key checked once, cached).
 * @example const verifier = createStrictVerifier(nativeVerify); verifier(pk, msg, sig) // boolean
 */
export {
  type Ed25519Verifier,
  type Ed25519Signer,
  type Ed25519KeyPair,
  type StrictVerifierOptions,
  nobleStrictVerifier,
  createStrictVerifier,
  isCanonicalS,
  isStrictPublicKey,
  ed25519PublicKey,
  ed25519Sign,
  generateEd25519KeyPair,
} from "./ed25519.ts";
/**
 * 86-char base64url signature strings.
 * @example decodeSignature(s) // Uint8Array(64) | null
 */
export { isSignatureString, decodeSignature, encodeSignature } from "./signature-encoding.ts";
/**
 * Transport signature base (INK §6.1), signing and single-key verification.
 * @example signTransport({ method: "POST", path, recipientDid, body, timestamp: body.timestamp }, sk, "sig-1") // { ok, signature, authorization }
 */
export {
  type SignInput,
  type SignatureBaseResult,
  type TransportSignResult,
  buildSignatureBase,
  signatureBaseFromCanonical,
  signTransport,
  verifyTransportSignature,
} from "./transport.ts";
/**
 * `Authorization: INK-Ed25519 <sig>[ keyId=<id>]` parse/build (INK §6.2).
 * @example parseAuthorizationHeader("INK-Ed25519 " + sig) // { ok: true, signature, keyId: null }
 */
export {
  type ParsedAuthHeader,
  type AuthHeaderReason,
  type BuiltAuthHeader,
  parseAuthorizationHeader,
  buildAuthorizationHeader,
  isHeaderKeyId,
} from "./auth-header.ts";
/**
 * Body signature with version-keyed domain separation (INK §7).
 * @example signBody(envelope, sk, "svc") // { ok: true, body: { …envelope, signature } }
 */
export { type SignBodyResult, bodySignatureDomain, bodySigningText, signBody, verifyBody } from "./body-signature.ts";
/**
 * Replay: nonce grammar, the injected `NonceStore`, and the standalone `checkReplay`.
 * @example checkReplay({ timestamp, nonce, now, seen: (n) => store.has(n) }) // { ok } | { ok: false, reason: "duplicate_nonce" }
 */
export {
  type NonceStore,
  type NonceRecordResult,
  type ReplayInput,
  type ReplayDecision,
  isReplayNonce,
  recordNonce,
  createMemoryNonceStore,
  checkReplay,
} from "./replay.ts";
/**
 * Key resolution under the authority rule and rotation-aware verification (INK §10).
 * @example verifyWithSenderKeys(resolveSenderKeys({ card, agentId: from }), tsMs, hint, (pk) => …, { liveAuth: true })
 */
export {
  type KeyStatus,
  type SigningKeyEntry,
  type SenderKeys,
  type KeyVerifyOptions,
  type KeyVerifyResult,
  type SenderKeyInputs,
  type EncryptionKey,
  verifyWithSenderKeys,
  isKeyUsableAt,
  senderKeysFromCard,
  resolveSenderKeys,
  recipientEncryptionKey,
} from "./keys.ts";

// ── Envelopes: receive and send ──────────────────────────────────────────────────────────────
/**
 * The strict intent envelope (INK §3.1).
 * @example parseEnvelope(json) // { ok: true, envelope } | { ok: false, reason: "invalid_envelope" | "unsupported_protocol_version" }
 */
export { type EnvelopeProtocol, type EnvelopeParse, type EnvelopeReason, ENVELOPE_PROTOCOLS, IntentEnvelope, Provenance, parseEnvelope } from "./envelope.ts";
/**
 * ECIES sealed envelopes (ENCRYPTION.md): seal with the sealer refusals; open = decrypt decision.
 * The X25519 and AES-GCM primitives are a parameter: `nobleEnvelopeCrypto`, pure JS, is imported
 * from "./encryption-noble.ts" (not re-exported here, so that a program with native primitives
 * never loads noble's AES and curves), or a native backend.
 * @example openEnvelope({ envelope, recipientSecretKeys: [current, previous], recipientDid: ownId, wordmark, crypto: nobleEnvelopeCrypto })
 */
export {
  type SealedEnvelope,
  type SealInput,
  type SealResult,
  type SealFailure,
  type OpenInput,
  type OpenResult,
  type OpenFailure,
  type X25519Backend,
  type EnvelopeCrypto,
  sealEnvelope,
  openEnvelope,
} from "./encryption.ts";
/**
 * The receiver's full decision for an intent POST, in two sync phases around async key lookup.
 * @example
 * const p = inspectInbound({ body, authorization, now }, policy);
 * if (!p.ok) return p.reason;
 * const keys = resolveSenderKeys({ card: await fetchCard(p.from), agentId: p.from });
 * const d = authenticateInbound(p, { keys, verifier, replay: { store }, decryptionKeys });
 */
export {
  type InboundPolicy,
  type InboundRequest,
  type InboundPending,
  type InboundContext,
  type InboundAccepted,
  type InboundRejection,
  type InboundDecision,
  inspectInbound,
  authenticateInbound,
  decideInbound,
} from "./receiver.ts";
export type { InboundReason } from "./receiver-reasons.ts";
/**
 * A relay (mailbox) holding an intent for another agent: the receiver's phase 1 with the recipient's
 * id and published path as policy, then only the transport signature (no key to decrypt, and the
 * body signature is the recipient's to check).
 * @example const p = inspectInbound(req, policy); if (p.ok) verifyRelayTransport(p, { keys, verifier });
 */
export { type RelayAccepted, verifyRelayTransport } from "./relay.ts";
/**
 * The sender side: version selection, build + body-sign, seal when confidential, transport-sign.
 * @example
 * const env = buildSignedEnvelope(draft, sk, "svc");
 * const req = prepareOutbound({ envelope: env.envelope, recipient: { agentId, endpoint, encryptionKey }, secretKey: sk, keyId, wordmark: "svc" });
 * // fetch(req.url, { method: "POST", headers: { authorization: req.authorization, "content-type": "application/json" }, body: req.bodyText })
 */
export {
  type EnvelopeDraft,
  type BuildEnvelopeResult,
  type OutboundRecipient,
  type OutboundInput,
  type OutboundRequest,
  type OutboundFailure,
  DEFAULT_VERSION_PREFERENCES,
  selectProtocolVersion,
  buildSignedEnvelope,
  prepareOutbound,
} from "./sender.ts";

// ── Discovery and Agent Cards ───────────────────────────────────────────────
/**
 * The card discovery-fetch response contract (INK §12) and its Content-Type rule.
 * @example checkCardFetchResponse({ status, contentType, contentLength, body, requestedAgentId, resolutionDid: null })
 */
export {
  type CardFetchResponse,
  type CardFetchResult,
  type CardFetchFailure,
  type AcceptedCardProof,
  MAX_CARD_BYTES,
  checkCardFetchResponse,
  isJsonContentType,
  cardUrls,
} from "./card-fetch.ts";
/**
 * Agent Card proof (INK §13): signing input `ink/agent-card\n` + JCS(card minus `cardSignature`),
 * signer selection, strict verification and rooting (genesis key, rotation chain, did:web keys).
 * @example signAgentCard(card, sk, card.currentSigningKeyId) // { ok: true, card: { …card, cardSignature } }
 * @example verifyAgentCardProof(card, { verifier }) // { ok: true, kind: "signed", keyId, publicKey, keySetVersion, anchor: "genesis" }
 */
export {
  type CardProofFailure,
  type CardProofResult,
  type CardProofOptions,
  type CardAnchor,
  CARD_SIGNATURE_DOMAIN,
  LEGACY_CARD_KEY_ID,
  agentCardSigningInput,
  signAgentCard,
  verifyAgentCardProof,
  selectCardSigner,
} from "./card-signature.ts";
/**
 * Card rotation links (INK §13): `ink/card-rotation\n` + JCS(link minus `signature`).
 * @example signRotationLink({ keySetVersion: 2, signing, prevKeyId: "sig-0" }, genesisSk) // { ok: true, link }
 */
export {
  type RotationLink,
  type RotationLinkKey,
  type RotationChainFailure,
  CARD_ROTATION_DOMAIN,
  MAX_ROTATION_LINKS,
  rotationLinkSigningInput,
  signRotationLink,
} from "./rotation-chain.ts";
/**
 * The unsigned-card ratchet, rollback and signer continuity against a cached authenticated card.
 * @example checkCardContinuity(cachedCard, fetchedCard) // { ok: false, reason: "continuity_version_regression", issue }
 */
export { type ContinuityFailure, type ContinuityResult, checkCardContinuity, isSignedCard } from "./card-continuity.ts";
/**
 * The whole §13 decision on a fetched card: proof and rooting, ratchet and continuity against the
 * last authenticated card, did:web anchoring, the staged Phase C rule; INK's reasons and audit events.
 * @example authenticateAgentCard(card, { agentId, cachedCard, didWeb: { status: "unavailable" } }) // { ok: true, reason: "signed_authenticated", auditEvent: "card.anchor_unverified", proof }
 */
export { type CardTrustOptions, type CardTrustResult, type CardTrustFailure, type DidWebResolution, authenticateAgentCard } from "./card-trust.ts";
/**
 * Identity binding (INK §2.1, §13): the keys a card may bind to its agent id. Keys other than the
 * genesis key of a key-derived id count only under a proof rooted in that key.
 * @example bindAgentCard(card, verifyAgentCardProof(card)) // { ok: true, card: <genesis key only>, basis: "genesis" }
 */
export { type CardBinding, type CardBindingBasis, bindAgentCard } from "./card-binding.ts";
/**
 * Signed discovery-query envelopes (INK §18): verify in schema → signature → audience → window → replay order.
 * @example verifyDiscoveryQuery({ raw, audience: ownIds, now, publicKey, replay: store, wordmark })
 */
export {
  type DiscoveryQueryInput,
  type DiscoveryQueryResult,
  type DiscoveryQueryReason,
  type DiscoveryQueryDraft,
  DiscoveryQuery,
  DiscoveryQueryEnvelope,
  verifyDiscoveryQuery,
  parseDiscoveryQuery,
  signDiscoveryQuery,
} from "./discovery-query.ts";

// ── Other signed protocol requests ───────────────────────────────────────────────────────────
/**
 * Transport-authenticated requests that are not intents (agent-card queries, directory listings),
 * in the receiver's two phases.
 * @example
 * const p = inspectSignedRequest({ body, authorization, now }, { ownAgentId, path, wordmark, typeSuffix: "agent_card_query" });
 * const a = p.ok ? authenticateSignedRequest(p, { keys, verifier }) : p;
 */
export {
  type SignedRequestPolicy,
  type SignedRequestPending,
  type SignedRequestAccepted,
  inspectSignedRequest,
  authenticateSignedRequest,
} from "./signed-request.ts";
