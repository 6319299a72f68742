// The receiver's decision for an intent POST (INK §9, ENCRYPTION §6), split in two synchronous
// phases so the app can resolve sender keys asynchronously (card fetch) in between:
//   inspectInbound      — raw gate, structure, disposition, recipient binding, transport-auth
//                         checks that need no key (header grammar, from, timestamp, freshness, nonce).
//   authenticateInbound — signatures under the resolved keys, decryption and inner checks for
//                         sealed envelopes, then the replay nonce, recorded last.
// Observable reasons follow the reference order; see docs/decisions/ink-receiver.md.
import { parseAuthorizationHeader } from "./auth-header.ts";
import { isPlainObject, utf8 } from "./bytes.ts";
import { type Ed25519Verifier, nobleStrictVerifier } from "./ed25519.ts";
import { openEnvelope } from "./encryption.ts";
import { checkEnvelopeSchema, type IntentEnvelope, parseEnvelope } from "./envelope.ts";
import { checkIntentDisposition, isIntentSupported } from "./intents.ts";
import { canonicalize, canonicalizePair } from "./jcs.ts";
import { type KeyStatus, type SenderKeys, verifyWithSenderKeys } from "./keys.ts";
import { validateIntentPayload } from "./payloads.ts";
import { isReservedPrincipalSpelling, normalizePrincipal } from "./principal.ts";
import { DEFAULT_MAX_BODY_BYTES, parseRawBody } from "./raw-body.ts";
import type { InboundReason } from "./receiver-reasons.ts";
import { isReplayNonce, type NonceStore, recordNonce } from "./replay.ts";
import { decodeSignature } from "./signature-encoding.ts";
import { checkFreshness, parseTimestamp } from "./timestamp.ts";
import { signatureBaseFromCanonical } from "./transport.ts";
import { bodySignatureDomain, verifyBody } from "./body-signature.ts";
import { isAcceptedMessageType, type Wordmark } from "./wordmark.ts";

export type InboundPolicy = {
  /** Own agent id exactly as published in the card: recipient binding and recipientDid. */
  ownAgentId: string;
  /** Path of the endpoint this node published (signature-base PATH, INK §6.1 step 3). */
  endpointPath: string;
  wordmark: Wordmark;
  /** Intents this receiver handles besides the core ones. */
  supportedIntents: readonly string[];
  /** Receiver-widened confidential intents (the protocol set always applies). */
  extraConfidentialIntents?: readonly string[];
  /** True when the node holds an X25519 key; otherwise sealed bodies get `encryption_unsupported`. */
  acceptsSealed?: boolean;
  /** Inbound body cap in bytes ([C9]); default 65 536. */
  maxBodyBytes?: number;
};

export type InboundRequest = {
  body: Uint8Array | string;
  /** The Authorization header value, or null/undefined when absent. */
  authorization: string | null | undefined;
  /** Receiver clock, epoch ms. */
  now: number;
};

export type InboundRejection = { ok: false; reason: InboundReason; detail?: string };

/** Phase-1 result: what the app needs to resolve keys, plus opaque verification state. */
export type InboundPending = {
  readonly ok: true;
  readonly sealed: boolean;
  /** Sender principal as on the wire, and its canonical form (key per-sender state on this). */
  readonly from: string;
  readonly principal: string;
  /** Key hint: header `keyId`, else body `signingKeyId`, else null. */
  readonly keyIdHint: string | null;
  readonly timestampMs: number;
  /** The replay nonce: body `nonce`, or outer `messageNonce` when sealed ([E3]). */
  readonly nonce: string;
  /** The plaintext envelope (null when sealed: known only after decryption). */
  readonly envelope: IntentEnvelope | null;
  readonly body: Record<string, unknown>;
  /** @internal verification material built in phase 1. */
  readonly state: PendingState;
};

type PendingState = {
  policy: InboundPolicy;
  base: Uint8Array;
  transportSignature: Uint8Array;
  bodySigned: Uint8Array | null;
  bodySignature: Uint8Array | null;
};

export type InboundContext = {
  /** Keys resolved for `pending.from` under the authority rule (`resolveSenderKeys`). */
  keys: SenderKeys;
  verifier?: Ed25519Verifier;
  /**
   * Replay handling (INK §8). `store`: `addIfAbsent(principal, nonce)` is called last, after every
   * other check passed. `defer`: nothing is recorded; the app MUST insert `result.nonce` atomically
   * in its own transaction and treat a conflict as `nonce_replay`.
   */
  replay: { store: NonceStore } | { defer: true };
  /** Own X25519 private keys for sealed bodies: current first, then the previous one ([E2]). */
  decryptionKeys?: readonly Uint8Array[];
  /** Bounded grace window for retired keys on live auth (INK §6.3). */
  allowRetiredForLiveAuth?: boolean;
};

export type InboundAccepted = {
  ok: true;
  /** The intent envelope: the plaintext body, or the decrypted inner envelope when sealed. */
  envelope: IntentEnvelope;
  sealed: boolean;
  from: string;
  principal: string;
  keyId: string;
  keyStatus: KeyStatus;
  /** The replay nonce and its scope; `recorded` is false when the app deferred recording. */
  nonce: { scope: string; value: string; recorded: boolean };
};

export type InboundDecision = InboundAccepted | InboundRejection;

/** Phase 1: every check that needs no sender key. Pure and synchronous. */
export function inspectInbound(request: InboundRequest, policy: InboundPolicy): InboundPending | InboundRejection {
  const gate = parseRawBody(request.body, policy.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES);
  if (!gate.ok) return reject(gate.reason);
  const body = gate.value;
  if (!isPlainObject(body)) return reject("invalid_envelope", "body is not a JSON object");
  if (isAcceptedMessageType(body.type, "encrypted", policy.wordmark)) return inspectSealed(request, policy, body);

  // INK §9 step 4: structure before any curve operation.
  const schema = checkEnvelopeSchema(body);
  if (!schema.ok) return reject(schema.reason, schema.issue);
  const envelope = body as IntentEnvelope;
  const jcs = canonicalizePair(body, "signature");
  if (!jcs.ok) return reject("invalid_envelope", `canonical form: ${jcs.reason}`);

  // Step 5: disposition, [C2] order, then the strict payload schema.
  const disposition = checkIntentDisposition(envelope, policy.supportedIntents, policy.extraConfidentialIntents);
  if (!disposition.ok) return reject(disposition.reason);
  const payload = validateIntentPayload(envelope.intent, envelope.payload);
  if (!payload.ok) return reject("invalid_payload", payload.issue);

  // Step 6: recipient binding, exact bytes.
  if (envelope.to !== policy.ownAgentId) return reject("recipient_mismatch");

  const auth = preAuthenticate(request, policy, body, body.nonce, jcs.full);
  if (!auth.ok) return auth;
  const bodySigned = utf8(bodySignatureDomain(envelope.protocol, policy.wordmark) + jcs.stripped);
  const state: PendingState = { ...auth.state, bodySigned, bodySignature: decodeSignature(envelope.signature) };
  return pending(false, auth, body, envelope, state);
}

/**
 * Phase 2: transport signature under the sender keys (live auth), body signature with the same
 * key, decryption and inner checks for sealed envelopes, then the replay nonce — recorded last.
 */
export function authenticateInbound(pending: InboundPending, ctx: InboundContext): InboundDecision {
  const replay = ctx.replay as { store?: NonceStore; defer?: boolean } | undefined;
  if (replay === undefined || (replay.defer !== true && typeof replay.store?.addIfAbsent !== "function")) {
    return reject("nonce_handling_required");
  }
  const verifier = ctx.verifier ?? nobleStrictVerifier;
  const { state } = pending;
  const transport = verifyWithSenderKeys(
    ctx.keys,
    pending.timestampMs,
    pending.keyIdHint,
    (pk) => verifier(pk, state.base, state.transportSignature),
    { liveAuth: true, allowRetiredForLiveAuth: ctx.allowRetiredForLiveAuth === true },
  );
  if (!transport.ok) return reject(transport.reason);

  let envelope: IntentEnvelope;
  if (!pending.sealed) {
    // INK §9 step 9: the body signature must verify under the key that passed transport auth.
    if (state.bodySigned === null || state.bodySignature === null || !verifier(transport.publicKey, state.bodySigned, state.bodySignature)) {
      return reject("invalid_body_signature");
    }
    envelope = pending.envelope as IntentEnvelope;
  } else {
    const inner = openSealed(pending, ctx, transport.publicKey, verifier);
    if (!inner.ok) return inner;
    envelope = inner.envelope;
  }

  if ("store" in ctx.replay) {
    const recorded = recordNonce(ctx.replay.store, pending.principal, pending.nonce);
    if (!recorded.ok) return reject(recorded.reason);
  }
  return {
    ok: true,
    envelope,
    sealed: pending.sealed,
    from: pending.from,
    principal: pending.principal,
    keyId: transport.keyId,
    keyStatus: transport.keyStatus,
    nonce: { scope: pending.principal, value: pending.nonce, recorded: "store" in ctx.replay },
  };
}

/** Both phases at once, for callers that already hold the sender keys. */
export function decideInbound(
  request: InboundRequest,
  policy: InboundPolicy,
  ctx: InboundContext | ((pending: InboundPending) => InboundContext),
): InboundDecision {
  const pending = inspectInbound(request, policy);
  if (!pending.ok) return pending;
  return authenticateInbound(pending, typeof ctx === "function" ? ctx(pending) : ctx);
}

// ENCRYPTION §6: outer shape caps, then the same transport pre-checks over the outer body with
// messageNonce as the replay nonce (the outer `nonce` is the AES-GCM IV).
function inspectSealed(request: InboundRequest, policy: InboundPolicy, body: Record<string, unknown>): InboundPending | InboundRejection {
  if (policy.acceptsSealed !== true) return reject("encryption_unsupported");
  if (body.protocol !== "ink/0.1") return reject("unsupported_protocol_version");
  const shape: [unknown, number, number][] = [
    [body.from, 1, 512],
    [body.timestamp, 1, 64],
    [body.ephemeralKey, 1, 64],
    [body.nonce, 1, 32],
    [body.ciphertext, 1, 1_400_000],
  ];
  for (const [value, min, max] of shape) {
    if (typeof value !== "string" || value.length < min || value.length > max) return reject("invalid_outer_envelope");
  }
  if (!isReplayNonce(body.messageNonce)) return reject("invalid_outer_envelope", "messageNonce");
  const jcs = canonicalize(body);
  if (!jcs.ok) return reject("invalid_outer_envelope", `canonical form: ${jcs.reason}`);
  const auth = preAuthenticate(request, policy, body, body.messageNonce, jcs.text);
  if (!auth.ok) return auth;
  return pending(true, auth, body, null, { ...auth.state, bodySigned: null, bodySignature: null });
}

type PreAuth =
  | { ok: true; from: string; principal: string; keyIdHint: string | null; timestampMs: number; nonce: string; state: Omit<PendingState, "bodySigned" | "bodySignature"> }
  | InboundRejection;

// INK §9 step 8 up to the key lookup, in the reference order: header → from → timestamp present →
// strict parse → future bound → past bound → nonce grammar.
function preAuthenticate(
  request: InboundRequest,
  policy: InboundPolicy,
  body: Record<string, unknown>,
  nonce: unknown,
  canonicalBody: string,
): PreAuth {
  const header = parseAuthorizationHeader(request.authorization);
  if (!header.ok) return reject(header.reason);
  const from = body.from;
  if (from === undefined) return reject("missing_sender");
  if (typeof from !== "string" || from.length === 0 || from.length > 256 || isReservedPrincipalSpelling(from)) {
    return reject("invalid_from_field"); // [C7] transport caps `from` at 256; [C5] key:/raw: refused
  }
  if (body.timestamp === undefined) return reject("missing_timestamp");
  const timestampMs = parseTimestamp(body.timestamp);
  if (timestampMs === null) return reject("invalid_timestamp");
  if (!Number.isFinite(request.now)) return reject("invalid_timestamp", "receiver clock");
  const freshness = checkFreshness(timestampMs, request.now);
  if (freshness !== "fresh") return reject(freshness);
  if (!isReplayNonce(nonce)) return reject("missing_nonce");
  const base = signatureBaseFromCanonical("POST", policy.endpointPath, policy.ownAgentId, canonicalBody, body.timestamp);
  if (!base.ok) return reject("invalid_signature_base", base.detail);
  const principal = normalizePrincipal(from);
  if (!principal.ok) return reject("invalid_from_field");
  const bodyHint = typeof body.signingKeyId === "string" ? body.signingKeyId : null;
  return {
    ok: true,
    from,
    principal: principal.principal,
    keyIdHint: header.keyId ?? bodyHint, // header keyId wins (INK §6.2)
    timestampMs,
    nonce,
    state: { policy, base: utf8(base.base), transportSignature: decodeSignature(header.signature) as Uint8Array },
  };
}

function openSealed(
  pending: InboundPending,
  ctx: InboundContext,
  senderKey: Uint8Array,
  verifier: Ed25519Verifier,
): { ok: true; envelope: IntentEnvelope } | InboundRejection {
  const policy = pending.state.policy;
  const opened = openEnvelope({
    envelope: pending.body,
    recipientSecretKeys: ctx.decryptionKeys ?? [],
    recipientDid: policy.ownAgentId,
    wordmark: policy.wordmark,
  });
  if (!opened.ok) return reject("decrypt_failed", opened.reason);
  // ENCRYPTION §6 steps 9–12: full inner schema, support check only (never encryption_required
  // on a decrypted envelope), strict payload, and the inner body signature with the sender key.
  const inner = parseEnvelope(opened.inner);
  if (!inner.ok) return reject(inner.reason, inner.issue);
  const envelope = inner.envelope;
  if (!isIntentSupported(envelope.intent, policy.supportedIntents)) return reject("unsupported_intent");
  const payload = validateIntentPayload(envelope.intent, envelope.payload);
  if (!payload.ok) return reject("invalid_payload", payload.issue);
  if (!verifyBody(envelope, senderKey, policy.wordmark, verifier)) return reject("invalid_body_signature");
  return { ok: true, envelope };
}

function pending(
  sealed: boolean,
  auth: Extract<PreAuth, { ok: true }>,
  body: Record<string, unknown>,
  envelope: IntentEnvelope | null,
  state: PendingState,
): InboundPending {
  return {
    ok: true,
    sealed,
    from: auth.from,
    principal: auth.principal,
    keyIdHint: auth.keyIdHint,
    timestampMs: auth.timestampMs,
    nonce: auth.nonce,
    envelope,
    body,
    state,
  };
}

function reject(reason: InboundReason, detail?: string): InboundRejection {
  return detail === undefined ? { ok: false, reason } : { ok: false, reason, detail };
}
