// Hash-chained audit events and the signed audit response (AUDIT.md §2–§4).
//   chain hash     = SHA-256(JCS(event − agentSignature)), lowercase hex, no domain
//   agentSignature = Ed25519(`ink/audit-event\n` + JCS(event − agentSignature))  [A1]
//   responseSignature = Ed25519(`ink/audit-response\n` + JCS(events))
import { sha256 } from "@noble/hashes/sha2.js";
import { isPlainObject, toHex, utf8 } from "./bytes.ts";
import { type Ed25519Signer, type Ed25519Verifier, ed25519Sign, nobleStrictVerifier } from "./ed25519.ts";
import { canonicalize } from "./jcs.ts";
import { type KeyVerifyResult, type SenderKeys, verifyWithSenderKeys } from "./keys.ts";
import { decodeSignature, encodeSignature } from "./signature-encoding.ts";
import { parseTimestamp } from "./timestamp.ts";
import { messageType, type Wordmark } from "./wordmark.ts";

const EVENT_DOMAIN = "ink/audit-event\n";
const RESPONSE_DOMAIN = "ink/audit-response\n";

/** Minimal audit event shape; unknown members are kept and hashed (unknown types too, [A2]). */
export type AuditEvent = {
  id: string;
  version: "ink-audit/1";
  agentId: string;
  sequence: number;
  previousEventHash: string | null;
  eventType: string;
  timestamp: string;
  messageId?: string;
  correlationId?: string;
  counterpartyId?: string;
  signingKeyId?: string;
  data?: Record<string, unknown>;
  agentSignature?: string;
  [extra: string]: unknown;
};

/** JCS of the event without `agentSignature`, or null when it is not canonicalizable. */
export function auditEventCanonical(event: unknown): string | null {
  if (!isPlainObject(event)) return null;
  const { agentSignature: _omit, ...rest } = event;
  const jcs = canonicalize(rest);
  return jcs.ok ? jcs.text : null;
}

/** The chain hash that the next event carries as `previousEventHash`. */
export function auditEventHash(event: unknown): string | null {
  const text = auditEventCanonical(event);
  return text === null ? null : toHex(sha256(utf8(text)));
}

/**
 * RFC 6962 leaf hash of an event for witness logs (AUDIT §6): SHA-256(0x00 ‖ JCS(event −
 * agentSignature)), lowercase hex. Null for a non-object or a value JCS refuses.
 */
export function auditLeafHash(event: unknown): string | null {
  const text = auditEventCanonical(event);
  if (text === null) return null;
  const bytes = utf8(text);
  const leaf = new Uint8Array(bytes.length + 1);
  leaf.set(bytes, 1);
  return toHex(sha256(leaf));
}

/** Sign an event (any existing `agentSignature` is replaced). */
export function signAuditEvent(event: AuditEvent, secretKey: Uint8Array): { ok: true; event: AuditEvent } | { ok: false; reason: "invalid_event" } {
  const text = auditEventCanonical(event);
  if (text === null) return { ok: false, reason: "invalid_event" };
  return { ok: true, event: { ...event, agentSignature: encodeSignature(ed25519Sign(utf8(EVENT_DOMAIN + text), secretKey)) } };
}

/**
 * Verify `agentSignature` rotation-aware: artifact clock = the event's own `timestamp`
 * (unparseable fails closed for a key set), hint = `signingKeyId`; retired-in-window keys verify,
 * revoked never. A single pinned key (`bootstrap`) has no window, so it needs no clock.
 */
export function verifyAuditEventSignature(event: unknown, keys: SenderKeys, verifier: Ed25519Verifier = nobleStrictVerifier): KeyVerifyResult {
  const text = auditEventCanonical(event);
  const sig = decodeSignature((event as { agentSignature?: unknown } | null)?.agentSignature);
  const at = parseTimestamp((event as { timestamp?: unknown } | null)?.timestamp) ?? Number.NaN;
  if (text === null || sig === null || (Number.isNaN(at) && keys?.kind !== "bootstrap")) return { ok: false, reason: "signature_verification_failed" };
  const hint = (event as { signingKeyId?: unknown }).signingKeyId;
  const message = utf8(EVENT_DOMAIN + text);
  return verifyWithSenderKeys(keys, at, typeof hint === "string" ? hint : null, (pk) => verifier(pk, message, sig));
}

export type ChainFailure = "invalid_input" | "invalid_event" | "sequence_fork" | "sequence_gap" | "previous_hash_mismatch";

export type ChainResult = { ok: true; lastHash: string | null } | { ok: false; reason: ChainFailure; index: number };

/**
 * Validate a slice (AUDIT §3), first failure wins: sequence +1, duplicate sequence = fork,
 * `previousEventHash` links to the predecessor's chain hash. The slice may start anywhere; its
 * first link is the caller's to check against a pinned hash.
 */
export function verifyAuditEventChain(events: unknown): ChainResult {
  if (!Array.isArray(events)) return { ok: false, reason: "invalid_input", index: -1 };
  const hashes: string[] = [];
  for (let i = 0; i < events.length; i++) {
    const e = events[i];
    if (!isPlainObject(e) || !Number.isSafeInteger(e.sequence) || (e.sequence as number) < 1) return { ok: false, reason: "invalid_event", index: i };
    if (e.previousEventHash !== null && typeof e.previousEventHash !== "string") return { ok: false, reason: "invalid_event", index: i };
    const h = auditEventHash(e);
    if (h === null) return { ok: false, reason: "invalid_event", index: i };
    hashes.push(h);
  }
  for (let i = 1; i < events.length; i++) {
    const prev = events[i - 1] as { sequence: number };
    const cur = events[i] as { sequence: number; previousEventHash: unknown };
    if (cur.sequence === prev.sequence) return { ok: false, reason: "sequence_fork", index: i };
    if (cur.sequence !== prev.sequence + 1) return { ok: false, reason: "sequence_gap", index: i };
    if (cur.previousEventHash !== hashes[i - 1]) return { ok: false, reason: "previous_hash_mismatch", index: i };
  }
  return { ok: true, lastHash: hashes.length === 0 ? null : (hashes[hashes.length - 1] as string) };
}

export type AuditResponse = {
  protocol: "ink/0.1";
  type: string;
  messageId: string;
  events: AuditEvent[];
  responseSignature: string;
};

/** Build a signed audit response; its type has only the wordmark spelling (AUDIT §4). `sign`: the Ed25519 backend. */
export function signAuditResponse(
  messageId: string,
  events: AuditEvent[],
  secretKey: Uint8Array,
  wordmark: Wordmark,
  sign: Ed25519Signer = ed25519Sign,
): { ok: true; response: AuditResponse } | { ok: false; reason: "invalid_event" } {
  const jcs = canonicalize(events);
  if (!jcs.ok) return { ok: false, reason: "invalid_event" };
  const responseSignature = encodeSignature(sign(utf8(RESPONSE_DOMAIN + jcs.text), secretKey));
  return { ok: true, response: { protocol: "ink/0.1", type: messageType("audit_response", wordmark), messageId, events, responseSignature } };
}

export type AuditResponseFailure = "malformed_response" | "invalid_response_signature" | "invalid_event_signature" | ChainFailure;

export type AuditResponseInput = {
  response: unknown;
  /** The responder's signing keys and the caller-supplied artifact time ([A6]). */
  responderKeys: SenderKeys;
  atMs: number;
  /** Keys of each event's `agentId` (usually the responder's own). */
  eventKeys: (agentId: string) => SenderKeys;
  wordmark: Wordmark;
  verifier?: Ed25519Verifier;
};

/**
 * The consumer's gate (AUDIT §4): shape, `responseSignature` over JCS(events), the slice chain,
 * and every event's `agentSignature`. Failing any rejects the whole slice.
 */
export function verifyAuditResponse(input: AuditResponseInput): { ok: true; events: AuditEvent[] } | { ok: false; reason: AuditResponseFailure; index?: number } {
  const verifier = input.verifier ?? nobleStrictVerifier;
  const r = input.response;
  if (!isPlainObject(r) || r.protocol !== "ink/0.1" || typeof r.messageId !== "string" || !Array.isArray(r.events)) {
    return { ok: false, reason: "malformed_response" };
  }
  // audit_response exists only in the wordmark spelling: `type` is not covered by the signature.
  if (r.type !== messageType("audit_response", input.wordmark)) {
    return { ok: false, reason: "malformed_response" };
  }
  const sig = decodeSignature(r.responseSignature);
  const jcs = canonicalize(r.events);
  if (sig === null || !jcs.ok) return { ok: false, reason: "invalid_response_signature" };
  const message = utf8(RESPONSE_DOMAIN + jcs.text);
  const responder = verifyWithSenderKeys(input.responderKeys, input.atMs, null, (pk) => verifier(pk, message, sig));
  if (!responder.ok) return { ok: false, reason: "invalid_response_signature" };
  const chain = verifyAuditEventChain(r.events);
  if (!chain.ok) return chain;
  for (let i = 0; i < r.events.length; i++) {
    const e = r.events[i] as AuditEvent;
    if (typeof e.agentId !== "string" || !verifyAuditEventSignature(e, input.eventKeys(e.agentId), verifier).ok) {
      return { ok: false, reason: "invalid_event_signature", index: i };
    }
  }
  return { ok: true, events: r.events as AuditEvent[] };
}

/**
 * Receipt `messageHash` (AUDIT §1): SHA-256 hex of JCS of the message exactly as received,
 * `signature` included; for a sealed message, of the decrypted inner envelope.
 */
export function messageHash(body: unknown): string | null {
  const jcs = canonicalize(body);
  return jcs.ok ? toHex(sha256(utf8(jcs.text))) : null;
}
