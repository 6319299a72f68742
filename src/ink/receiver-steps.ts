// Steps of the inbound decision shared by the plaintext and sealed paths (receiver.ts):
// transport-auth pre-checks, the sealed-envelope shape and inner checks, result builders.
import { parseAuthorizationHeader } from "./auth-header.ts";
import { utf8 } from "./bytes.ts";
import type { Ed25519Verifier } from "./ed25519.ts";
import { openEnvelope } from "./encryption.ts";
import { type IntentEnvelope, parseEnvelope } from "./envelope.ts";
import { isIntentSupported } from "./intents.ts";
import { canonicalize } from "./jcs.ts";
import { validateIntentPayload } from "./payloads.ts";
import { isReservedPrincipalSpelling, normalizePrincipal } from "./principal.ts";
import type { InboundReason } from "./receiver-reasons.ts";
import type { InboundContext, InboundPending, InboundPolicy, InboundRejection, InboundRequest, PendingState } from "./receiver-types.ts";
import { isReplayNonce } from "./replay.ts";
import { decodeSignature } from "./signature-encoding.ts";
import { checkFreshness, parseTimestamp } from "./timestamp.ts";
import { signatureBaseFromCanonical } from "./transport.ts";
import { verifyBody } from "./body-signature.ts";

// ENCRYPTION §6: outer shape caps, then the same transport pre-checks over the outer body with
// messageNonce as the replay nonce (the outer `nonce` is the AES-GCM IV).
export function inspectSealed(request: InboundRequest, policy: InboundPolicy, body: Record<string, unknown>): InboundPending | InboundRejection {
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

export type PreAuth =
  | { ok: true; from: string; principal: string; keyIdHint: string | null; timestampMs: number; nonce: string; state: Omit<PendingState, "bodySigned" | "bodySignature"> }
  | InboundRejection;

// INK §9 step 8 up to the key lookup, in the reference order: header → from → timestamp present →
// strict parse → future bound → past bound → nonce grammar.
export function preAuthenticate(
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

export function openSealed(
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

export function pending(
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

export function reject(reason: InboundReason, detail?: string): InboundRejection {
  return detail === undefined ? { ok: false, reason } : { ok: false, reason, detail };
}
