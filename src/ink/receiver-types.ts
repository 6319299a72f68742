// Types of the inbound decision (receiver.ts): policy, request, the phase-1 pending state, the
// phase-2 context and the results.
import type { Ed25519Verifier } from "./ed25519.ts";
import type { EnvelopeCrypto } from "./encryption.ts";
import type { IntentEnvelope } from "./envelope.ts";
import type { KeyStatus, SenderKeys } from "./keys.ts";
import type { InboundReason } from "./receiver-reasons.ts";
import type { NonceStore } from "./replay.ts";
import type { Wordmark } from "./wordmark.ts";

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

/** @internal Verification material carried from phase 1 to phase 2. */
export type PendingState = {
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
  /** X25519 and AES-GCM that open sealed bodies (nobleEnvelopeCrypto, or a native one as the app passes); without it a sealed body is `decrypt_failed` (`crypto_unavailable`). */
  envelopeCrypto?: EnvelopeCrypto;
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
