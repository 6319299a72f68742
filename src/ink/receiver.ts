// The receiver's decision for an intent POST (INK §9, ENCRYPTION §6), split in two synchronous
// phases so the app can resolve sender keys asynchronously (card fetch) in between:
//   inspectInbound      — raw gate, structure, disposition, recipient binding, transport-auth
//                         checks that need no key (header grammar, from, timestamp, freshness, nonce).
//   authenticateInbound — signatures under the resolved keys, decryption and inner checks for
//                         sealed envelopes, then the replay nonce, recorded last.
// Observable reasons follow the reference order; see docs/decisions/ink-receiver.md.
import { bodySignatureDomain } from "./body-signature.ts";
import { isPlainObject } from "./bytes.ts";
import { nobleStrictVerifier } from "./ed25519.ts";
import { checkEnvelopeSchema, type IntentEnvelope } from "./envelope.ts";
import { checkIntentDisposition } from "./intents.ts";
import { canonicalizePair } from "./jcs.ts";
import { verifyWithSenderKeys } from "./keys.ts";
import { validateIntentPayload } from "./payloads.ts";
import { DEFAULT_MAX_BODY_BYTES, parseRawBody } from "./raw-body.ts";
import { inspectSealed, openSealed, pending, preAuthenticate, reject } from "./receiver-steps.ts";
import type {
  InboundContext,
  InboundDecision,
  InboundPending,
  InboundPolicy,
  InboundRejection,
  InboundRequest,
  PendingState,
} from "./receiver-types.ts";
import { type NonceStore, recordNonce } from "./replay.ts";
import { decodeSignature } from "./signature-encoding.ts";
import { isAcceptedMessageType } from "./wordmark.ts";

export type {
  InboundAccepted,
  InboundContext,
  InboundDecision,
  InboundPending,
  InboundPolicy,
  InboundRejection,
  InboundRequest,
} from "./receiver-types.ts";

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

  const domain = bodySignatureDomain(envelope.protocol, policy.wordmark);
  const auth = preAuthenticate(request, policy, body, body.nonce, { full: jcs.full, cut: jcs.cut, domain });
  if (!auth.ok) return auth;
  const state: PendingState = { ...auth.state, bodySignature: decodeSignature(envelope.signature) };
  return pending(false, auth, body, envelope, state);
}

/**
 * Phase 2: transport signature under the sender keys (live auth), body signature with the same
 * key, decryption and inner checks for sealed envelopes, then the replay nonce — recorded last.
 */
export function authenticateInbound(pending: InboundPending, ctx: InboundContext): InboundDecision {
  const replay = (ctx as { replay?: unknown } | null)?.replay as { store?: NonceStore; defer?: boolean } | null | undefined;
  if (replay === null || typeof replay !== "object" || (replay.defer !== true && typeof replay.store?.addIfAbsent !== "function")) {
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

  const store = replay.defer === true ? null : (replay.store as NonceStore);
  if (store !== null) {
    const recorded = recordNonce(store, pending.principal, pending.nonce);
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
    nonce: { scope: pending.principal, value: pending.nonce, recorded: store !== null },
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
