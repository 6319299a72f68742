// Steps of the inbound decision shared by the plaintext and sealed paths (receiver.ts):
// transport-auth pre-checks, the sealed-envelope shape and inner checks, result builders.
import { parseAuthorizationHeader } from "./auth-header.ts";
import { fromBase64url, utf8 } from "./bytes.ts";
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
import { checkFreshness, parseTimestamp } from "./timestamp.ts";
import { signatureBaseLines } from "./transport.ts";
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
  const auth = preAuthenticate(request, policy, body, body.messageNonce, { full: jcs.text, cut: null, domain: null });
  if (!auth.ok) return auth;
  return pending(true, auth, body, null, { ...auth.state, bodySignature: null });
}

export type PreAuth =
  | { ok: true; from: string; principal: string; keyIdHint: string | null; timestampMs: number; nonce: string; state: Omit<PendingState, "bodySignature"> }
  | InboundRejection;

// INK §9 step 8 up to the key lookup, in the reference order: header → from → timestamp present →
// strict parse → future bound → past bound → nonce grammar.
export function preAuthenticate(
  request: InboundRequest,
  policy: InboundPolicy,
  body: Record<string, unknown>,
  nonce: unknown,
  signed: SignedTexts,
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
  const lines = signatureBaseLines("POST", policy.endpointPath, policy.ownAgentId, body.timestamp);
  if (!lines.ok) return reject("invalid_signature_base", lines.detail);
  const messages = encodeSignedMessages(lines.head, signed, lines.tail);
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
    // The header grammar admits exactly 86 base64url characters: they decode to the 64 bytes.
    state: { policy, base: messages.base, bodySigned: messages.bodySigned, transportSignature: fromBase64url(header.signature) as Uint8Array },
  };
}

/** JCS(whole body), the cut that removes `signature`, and the body-signature domain (plaintext only). */
export type SignedTexts = { full: string; cut: readonly [number, number] | null; domain: string | null };

/**
 * UTF-8 of the transport base (head + JCS(body) + tail) and of the body-signing text (domain +
 * JCS(body − signature), the cut removing the signature member). Each is one native encode of the
 * joined text: measured cheaper than encoding JCS(body) once and splicing its bytes, whose
 * typed-array views and JS length counts cost more than the second encode saves.
 */
function encodeSignedMessages(head: string, signed: SignedTexts, tail: string): { base: Uint8Array; bodySigned: Uint8Array | null } {
  const { full, cut, domain } = signed;
  const base = utf8(head + full + tail);
  if (domain === null || cut === null) return { base, bodySigned: null };
  return { base, bodySigned: utf8(domain + full.slice(0, cut[0]) + full.slice(cut[1])) };
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
    ...(ctx.envelopeCrypto === undefined ? {} : { crypto: ctx.envelopeCrypto }),
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
