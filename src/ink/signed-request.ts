// Transport-authenticated protocol requests that are not intent envelopes (agent-card queries,
// directory listings): the same raw gate, header grammar, freshness, nonce and key rules as the
// intent receiver (INK §6, §8, §9 step 8), split in the same two phases so keys can be fetched
// in between. The body is covered by the transport signature only (no body signature).
import { isPlainObject } from "./bytes.ts";
import { type Ed25519Verifier, nobleStrictVerifier } from "./ed25519.ts";
import { canonicalize } from "./jcs.ts";
import { type KeyStatus, type SenderKeys, verifyWithSenderKeys } from "./keys.ts";
import { DEFAULT_MAX_BODY_BYTES, parseRawBody } from "./raw-body.ts";
import { preAuthenticate, reject } from "./receiver-steps.ts";
import type { InboundPolicy, InboundRejection, InboundRequest } from "./receiver-types.ts";
import { isAcceptedMessageType, type Wordmark } from "./wordmark.ts";

export type SignedRequestPolicy = {
  /** Own agent id: recipientDid of the signature base, and the required `to` when present. */
  ownAgentId: string;
  /** The path this request was posted to (signature-base PATH). */
  path: string;
  wordmark: Wordmark;
  /** Required `type` suffix (`network.<wordmark|ink>.<suffix>`), e.g. "agent_card_query". */
  typeSuffix: string;
  maxBodyBytes?: number;
};

export type SignedRequestPending = {
  readonly ok: true;
  readonly from: string;
  readonly principal: string;
  readonly keyIdHint: string | null;
  readonly timestampMs: number;
  readonly nonce: string;
  readonly body: Record<string, unknown>;
  readonly state: { base: Uint8Array; transportSignature: Uint8Array };
};

export type SignedRequestAccepted = {
  ok: true;
  from: string;
  principal: string;
  keyId: string;
  keyStatus: KeyStatus;
  publicKey: Uint8Array;
  nonce: string;
  body: Record<string, unknown>;
};

/**
 * Phase 1: raw gate, object body, `type`, `protocol` ink/0.1, `to` binding, then the transport
 * pre-checks (header grammar, from, timestamp, freshness, nonce grammar).
 * @example const p = inspectSignedRequest({ body, authorization, now }, { ownAgentId, path, wordmark: "svc", typeSuffix: "agent_card_query" });
 */
export function inspectSignedRequest(request: InboundRequest, policy: SignedRequestPolicy): SignedRequestPending | InboundRejection {
  const gate = parseRawBody(request.body, policy.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES);
  if (!gate.ok) return reject(gate.reason);
  const body = gate.value;
  if (!isPlainObject(body)) return reject("invalid_envelope", "body is not a JSON object");
  if (body.protocol !== "ink/0.1") return reject("unsupported_protocol_version");
  if (!isAcceptedMessageType(body.type, policy.typeSuffix, policy.wordmark)) return reject("invalid_envelope", `type must be network.${policy.wordmark}.${policy.typeSuffix}`);
  if (body.to !== undefined && body.to !== policy.ownAgentId) return reject("recipient_mismatch");
  const jcs = canonicalize(body);
  if (!jcs.ok) return reject("invalid_envelope", `canonical form: ${jcs.reason}`);
  const receiverPolicy: InboundPolicy = { ownAgentId: policy.ownAgentId, endpointPath: policy.path, wordmark: policy.wordmark, supportedIntents: [] };
  const auth = preAuthenticate(request, receiverPolicy, body, body.nonce, { full: jcs.text, cut: null, domain: null });
  if (!auth.ok) return auth;
  return {
    ok: true,
    from: auth.from,
    principal: auth.principal,
    keyIdHint: auth.keyIdHint,
    timestampMs: auth.timestampMs,
    nonce: auth.nonce,
    body,
    state: { base: auth.state.base, transportSignature: auth.state.transportSignature },
  };
}

/**
 * Phase 2: the transport signature under the sender's keys (live authentication: retired keys
 * refused). The caller records `nonce` (scope: `principal`) atomically and rejects a conflict.
 */
export function authenticateSignedRequest(
  pending: SignedRequestPending,
  ctx: { keys: SenderKeys; verifier?: Ed25519Verifier; allowRetiredForLiveAuth?: boolean },
): SignedRequestAccepted | InboundRejection {
  const verifier = ctx.verifier ?? nobleStrictVerifier;
  const result = verifyWithSenderKeys(ctx.keys, pending.timestampMs, pending.keyIdHint, (pk) => verifier(pk, pending.state.base, pending.state.transportSignature), {
    liveAuth: true,
    allowRetiredForLiveAuth: ctx.allowRetiredForLiveAuth === true,
  });
  if (!result.ok) return reject(result.reason);
  return { ok: true, from: pending.from, principal: pending.principal, keyId: result.keyId, keyStatus: result.keyStatus, publicKey: result.publicKey, nonce: pending.nonce, body: pending.body };
}
