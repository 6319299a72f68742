// Delivery receipts (AUDIT.md §1): `network.<w>.receipt` {protocol, type, from, to, messageId,
// disposition, dispositionAt, note?, messageHash, nonce, timestamp, signature?}, sent with an INK
// transport signature to POST /ink/v1/receipt. `signature` is the INK body signature (§7); the
// upstream vectors carry receipts authenticated by the transport signature alone, so a receipt
// without it is accepted, and one with it must verify (docs/decisions/receipts-and-audit.md).
import * as v from "valibot";
import { messageHash } from "./audit.ts";
import { signBody, verifyBody } from "./body-signature.ts";
import { isPlainObject } from "./bytes.ts";
import { type Ed25519Signer, type Ed25519Verifier, ed25519Sign, nobleStrictVerifier } from "./ed25519.ts";
import { type SenderKeys, verifyWithSenderKeys } from "./keys.ts";
import { parseTimestamp } from "./timestamp.ts";
import { isAcceptedMessageType, messageType, type Wordmark } from "./wordmark.ts";

export const DISPOSITIONS = ["received", "delivered", "acted", "rejected", "expired"] as const;
export type Disposition = (typeof DISPOSITIONS)[number];

const bounded = (max: number) => v.pipe(v.string(), v.minLength(1), v.maxLength(max));

/** The receipt object; unknown members are tolerated (INK §3: receipts are tolerant objects). */
export const Receipt = v.looseObject({
  protocol: v.literal("ink/0.1"),
  type: v.string(),
  from: bounded(512),
  to: bounded(512),
  messageId: bounded(256),
  disposition: v.picklist(DISPOSITIONS),
  dispositionAt: bounded(64),
  note: v.optional(v.pipe(v.string(), v.maxLength(500))),
  messageHash: v.pipe(v.string(), v.regex(/^[0-9a-f]{64}$/)),
  nonce: bounded(256),
  timestamp: bounded(64),
  signature: v.optional(v.string()),
});
export type Receipt = v.InferOutput<typeof Receipt>;

export type ReceiptFailure = "malformed_receipt" | "from_mismatch" | "to_mismatch" | "message_id_mismatch" | "disposition_mismatch" | "message_hash_mismatch" | "invalid_signature";

export type ReceiptInput = {
  from: string;
  to: string;
  messageId: string;
  disposition: Disposition;
  dispositionAt: string;
  /** The message as received (the decrypted inner envelope for a sealed one). */
  message: unknown;
  nonce: string;
  timestamp: string;
  note?: string;
};

/**
 * A signed receipt for `input.message`: the hash of its JCS, and the INK body signature by the
 * issuer's key (the wordmark's domain, §7). Null when the message cannot be canonicalized.
 * `sign` is the Ed25519 backend (noble by default; the app passes its native one).
 * @example buildReceipt({ from: bob, to: alice, messageId, disposition: "delivered", dispositionAt, message, nonce, timestamp }, bobKey, "tulpa")
 */
export function buildReceipt(input: ReceiptInput, secretKey: Uint8Array, wordmark: Wordmark, sign: Ed25519Signer = ed25519Sign): Receipt | null {
  const hash = messageHash(input.message);
  if (hash === null) return null;
  const { message: _m, note, ...rest } = input;
  const body = { protocol: "ink/0.1", type: messageType("receipt", wordmark), ...rest, ...(note !== undefined ? { note } : {}), messageHash: hash };
  const signed = signBody(body, secretKey, wordmark, sign);
  return signed.ok ? (signed.body as Receipt) : null;
}

export type ReceiptCheck = {
  /** The original recipient (the issuer) and sender, and the message id, as expected. */
  from: string;
  to: string;
  messageId: string;
  /** The message as sent, `signature` included: its hash is recomputed, never trusted. */
  sentMessage: unknown;
  /** The issuer's keys; the artifact clock is the receipt's `timestamp` (AUDIT §5). */
  keys: SenderKeys;
  wordmark: Wordmark;
  disposition?: Disposition;
  verifier?: Ed25519Verifier;
};

/**
 * Verifies a receipt in the reference order: schema → from → to → messageId → (pinned)
 * disposition → messageHash of the message we sent → the body signature, when present, with the
 * issuer's keys (rotation-aware at the receipt's timestamp).
 */
export function verifyReceipt(receipt: unknown, check: ReceiptCheck): { ok: true; receipt: Receipt } | { ok: false; reason: ReceiptFailure } {
  const parsed = v.safeParse(Receipt, receipt);
  if (!parsed.success || !isAcceptedMessageType(parsed.output.type, "receipt", check.wordmark)) return { ok: false, reason: "malformed_receipt" };
  const r = parsed.output;
  if (parseTimestamp(r.timestamp) === null || parseTimestamp(r.dispositionAt) === null) return { ok: false, reason: "malformed_receipt" };
  if (r.from !== check.from) return { ok: false, reason: "from_mismatch" };
  if (r.to !== check.to) return { ok: false, reason: "to_mismatch" };
  if (r.messageId !== check.messageId) return { ok: false, reason: "message_id_mismatch" };
  if (check.disposition !== undefined && r.disposition !== check.disposition) return { ok: false, reason: "disposition_mismatch" };
  if (messageHash(check.sentMessage) !== r.messageHash) return { ok: false, reason: "message_hash_mismatch" };
  if (r.signature !== undefined) {
    const verifier = check.verifier ?? nobleStrictVerifier;
    const at = parseTimestamp(r.timestamp)!;
    const verified = verifyWithSenderKeys(check.keys, at, null, (pk) => verifyBody(receipt, pk, check.wordmark, verifier));
    if (!verified.ok) return { ok: false, reason: "invalid_signature" };
  }
  return { ok: true, receipt: r };
}

/** AUDIT §1 loop prevention: never a receipt for a receipt or an audit message (either spelling). */
export function wantsReceipt(body: unknown): boolean {
  if (!isPlainObject(body) || typeof body.type !== "string") return true; // intents carry no `type`
  return !/\.(receipt|audit_query|audit_response|audit_submit|audit_inclusion)$/.test(body.type);
}
