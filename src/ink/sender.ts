// The sender side (INK §9 "Sender procedure", §16): pick the version, build and body-sign the
// envelope, seal it when the intent is confidential, and transport-sign the final body for the
// recipient's card endpoint. A sender refuses to emit anything a strict receiver would reject.
import { buildAuthorizationHeader, isHeaderKeyId } from "./auth-header.ts";
import { signBody } from "./body-signature.ts";
import { toBase64url, utf8 } from "./bytes.ts";
import { type Ed25519Signer, ed25519Sign } from "./ed25519.ts";
import { type EnvelopeCrypto, type SealFailure, sealEnvelope } from "./encryption.ts";
import { endpointPath } from "./endpoint-url.ts";
import { type EnvelopeProtocol, type EnvelopeReason, type IntentEnvelope, parseEnvelope } from "./envelope.ts";
import { isConfidentialIntent } from "./intents.ts";
import { canonicalize } from "./jcs.ts";
import { validateIntentPayload } from "./payloads.ts";
import { isReservedPrincipalSpelling } from "./principal.ts";
import { isReplayNonce } from "./replay.ts";
import { encodeSignature } from "./signature-encoding.ts";
import { parseTimestamp } from "./timestamp.ts";
import { signatureBaseFromCanonical } from "./transport.ts";
import type { Wordmark } from "./wordmark.ts";

/** Versions this implementation can emit, in default preference order (INK §16: 0.1 by default). */
export const DEFAULT_VERSION_PREFERENCES: readonly EnvelopeProtocol[] = ["ink/0.1"];

/**
 * INK §16 receiver-first negotiation: the first of our preferences that the card advertises
 * (`supportedProtocolVersions`; absent or empty means `["ink/0.1"]`), else null (do not send).
 * @example selectProtocolVersion(["ink/0.2", "ink/0.1"], card.supportedProtocolVersions)
 */
export function selectProtocolVersion(ours: readonly string[], advertised: readonly unknown[] | null | undefined): EnvelopeProtocol | null {
  const theirs = Array.isArray(advertised) && advertised.length > 0 ? advertised : ["ink/0.1"];
  if (!Array.isArray(ours)) return null;
  for (const v of ours) {
    if ((v === "ink/0.1" || v === "ink/0.2") && theirs.includes(v)) return v;
  }
  return null;
}

/** Everything of an envelope except its signature. */
export type EnvelopeDraft = {
  protocol: EnvelopeProtocol;
  id: string;
  correlationId: string;
  createdAt: string;
  from: string;
  to: string;
  intent: string;
  payload: Record<string, unknown>;
  /** Transport freshness instant; usually equal to createdAt. */
  timestamp: string;
  /** Fresh replay nonce, `[A-Za-z0-9_-]{16,256}`. */
  nonce: string;
  signingKeyId?: string;
  expiresAt?: string;
  provenance?: { origin: "human" | "agent_approved" | "agent_autonomous"; extensionId?: string; installationId?: string };
};

export type BuildEnvelopeResult =
  | { ok: true; envelope: IntentEnvelope }
  | { ok: false; reason: EnvelopeReason | "invalid_payload" | "unsignable_body"; issue?: string };

/**
 * Build and body-sign an envelope (INK §3.1, §7). Emission is stricter than receipt: createdAt,
 * timestamp and expiresAt must be strict timestamps, the nonce must match the replay grammar,
 * and `from`/`to` must not use the reserved `key:`/`raw:` spellings. `sign`: the Ed25519 backend.
 */
export function buildSignedEnvelope(draft: EnvelopeDraft, secretKey: Uint8Array, wordmark: Wordmark, sign: Ed25519Signer = ed25519Sign): BuildEnvelopeResult {
  const strictTimes: [string, unknown][] = [
    ["createdAt", draft.createdAt],
    ["timestamp", draft.timestamp],
  ];
  if (draft.expiresAt !== undefined) strictTimes.push(["expiresAt", draft.expiresAt]);
  for (const [name, value] of strictTimes) {
    if (parseTimestamp(value) === null) return { ok: false, reason: "invalid_envelope", issue: `${name}: strict timestamp` };
  }
  if (!isReplayNonce(draft.nonce)) return { ok: false, reason: "invalid_envelope", issue: "nonce grammar" };
  if (isReservedPrincipalSpelling(String(draft.from)) || isReservedPrincipalSpelling(String(draft.to))) {
    return { ok: false, reason: "invalid_envelope", issue: "reserved principal spelling" };
  }
  const unsigned = dropUndefined({ ...draft, provenance: draft.provenance && dropUndefined({ ...draft.provenance }) });
  const signed = signBody(unsigned, secretKey, wordmark, sign);
  if (!signed.ok) return signed;
  const parsed = parseEnvelope(signed.body);
  if (!parsed.ok) return parsed;
  const payload = validateIntentPayload(parsed.envelope.intent, parsed.envelope.payload);
  if (!payload.ok) return payload;
  return { ok: true, envelope: parsed.envelope };
}

export type OutboundRecipient = {
  /** Card `agentId`, byte-exact: the transport recipientDid and the envelope `to`. */
  agentId: string;
  /** Card `endpoint`: the POST URL and the signature-base PATH. */
  endpoint: string;
  /** Current X25519 key from the card (`recipientEncryptionKey`), if it advertises one. */
  encryptionKey?: Uint8Array | null;
};

export type OutboundInput = {
  envelope: IntentEnvelope;
  recipient: OutboundRecipient;
  secretKey: Uint8Array;
  /** Sent as `keyId=` when it fits the header grammar (else only body `signingKeyId` carries it, [C11]). */
  keyId?: string | null;
  wordmark: Wordmark;
  /** The Ed25519 backend of the transport signature (default noble; the app passes a native one). */
  sign?: Ed25519Signer;
  /** X25519 and AES-GCM for sealing (nobleEnvelopeCrypto, or a native one as the app passes); a seal without it fails `crypto_unavailable`. */
  envelopeCrypto?: EnvelopeCrypto;
  /** Seal confidential intents (always) and, with "always", every intent. Default "auto". */
  seal?: "auto" | "always";
  extraConfidentialIntents?: readonly string[];
  /** Replay nonce of the sealed outer envelope; default: random 32 chars. */
  messageNonce?: string;
  /** Seal as `network.ink.encrypted` (every INK receiver accepts it) instead of the wordmark spelling. */
  neutralType?: boolean;
  /** Test hooks for deterministic sealing. */
  ephemeralSecretKey?: Uint8Array;
  iv?: Uint8Array;
};

export type OutboundRequest = {
  ok: true;
  /** POST target (the card endpoint) and the exact JSON text to send. */
  url: string;
  path: string;
  bodyText: string;
  body: Record<string, unknown>;
  authorization: string;
  sealed: boolean;
};

export type OutboundFailure = {
  ok: false;
  reason: "recipient_mismatch" | "invalid_endpoint" | "encryption_key_required" | "unsignable_body" | "invalid_signature_base" | SealFailure;
};

/**
 * Turn a signed envelope into an HTTP request: seal it when confidential (refusing when the card
 * has no encryption key), then transport-sign the final body over the card endpoint's PATH with
 * recipientDid = card agentId and timestamp = the body's timestamp.
 */
export function prepareOutbound(input: OutboundInput): OutboundRequest | OutboundFailure {
  const { envelope, recipient, wordmark } = input;
  if (envelope.to !== recipient.agentId) return { ok: false, reason: "recipient_mismatch" };
  const path = endpointPath(recipient.endpoint);
  if (path === null) return { ok: false, reason: "invalid_endpoint" };
  const confidential = isConfidentialIntent(envelope.intent, input.extraConfidentialIntents ?? []);
  let body: Record<string, unknown> = envelope;
  let sealed = false;
  if (confidential || input.seal === "always") {
    const key = recipient.encryptionKey;
    if (!(key instanceof Uint8Array)) return { ok: false, reason: "encryption_key_required" };
    const s = sealEnvelope({
      inner: envelope,
      senderDid: envelope.from,
      recipientDid: recipient.agentId,
      recipientPublicKey: key,
      timestamp: envelope.timestamp ?? envelope.createdAt,
      messageNonce: input.messageNonce ?? toBase64url(crypto.getRandomValues(new Uint8Array(24))),
      wordmark,
      ...(input.neutralType === true ? { neutralType: true } : {}),
      ...(input.ephemeralSecretKey === undefined ? {} : { ephemeralSecretKey: input.ephemeralSecretKey }),
      ...(input.iv === undefined ? {} : { iv: input.iv }),
      ...(input.envelopeCrypto === undefined ? {} : { crypto: input.envelopeCrypto }),
    });
    if (!s.ok) return s;
    body = s.envelope;
    sealed = true;
  }
  const jcs = canonicalize(body);
  if (!jcs.ok) return { ok: false, reason: "unsignable_body" };
  const base = signatureBaseFromCanonical("POST", path, recipient.agentId, jcs.text, body.timestamp);
  if (!base.ok) return { ok: false, reason: "invalid_signature_base" };
  const signature = encodeSignature((input.sign ?? ed25519Sign)(utf8(base.base), input.secretKey));
  const keyId = isHeaderKeyId(input.keyId) ? input.keyId : null;
  const header = buildAuthorizationHeader(signature, keyId);
  if (!header.ok) return { ok: false, reason: "invalid_signature_base" };
  return { ok: true, url: recipient.endpoint, path, bodyText: jcs.text, body, authorization: header.header, sealed };
}

// Optional members are omitted, never sent as undefined (JCS refuses non-JSON values).
function dropUndefined<T extends Record<string, unknown>>(obj: T): T {
  for (const k of Object.keys(obj)) if (obj[k] === undefined) delete obj[k];
  return obj;
}
