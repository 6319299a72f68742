// Transport signature (INK §6.1, frozen): Ed25519 over
//   ink/0.1 \n METHOD \n PATH \n recipientDid \n JCS(whole body) \n timestamp
// Line 1 is always ink/0.1, also for ink/0.2 envelopes; the body keeps its `signature` member.
import { buildAuthorizationHeader, isHeaderKeyId } from "./auth-header.ts";
import { isPlainObject, utf8 } from "./bytes.ts";
import { type Ed25519Signer, type Ed25519Verifier, ed25519Sign, nobleStrictVerifier } from "./ed25519.ts";
import { canonicalize } from "./jcs.ts";
import { decodeSignature, encodeSignature } from "./signature-encoding.ts";

export type SignInput = {
  method: string;
  path: string;
  recipientDid: string;
  body: unknown;
  timestamp: string;
};

export type SignatureBaseResult = { ok: true; base: string } | { ok: false; reason: "invalid_signature_base"; detail: string };

// Scalar caps in UTF-16 units (INK §6.1).
const CAPS = { method: 16, path: 2048, recipientDid: 256, timestamp: 64 } as const;

/**
 * The §6.1 signature base as a string. Scalars must be non-empty, within caps and free of CR/LF
 * (`/a\nb`+`x` and `/a`+`b\nx` would otherwise collide); the body must be a JSON object.
 */
export function buildSignatureBase(input: SignInput): SignatureBaseResult {
  if (input === null || typeof input !== "object") return bad("input");
  if (!isPlainObject(input.body)) return bad("body");
  const jcs = canonicalize(input.body);
  if (!jcs.ok) return bad(`body: ${jcs.reason}`);
  return signatureBaseFromCanonical(input.method, input.path, input.recipientDid, jcs.text, input.timestamp);
}

/** Same as `buildSignatureBase` when the caller already holds JCS(body) (hot path). */
export function signatureBaseFromCanonical(
  method: unknown,
  path: unknown,
  recipientDid: unknown,
  canonicalBody: string,
  timestamp: unknown,
): SignatureBaseResult {
  const lines = signatureBaseLines(method, path, recipientDid, timestamp);
  if (!lines.ok) return lines;
  return { ok: true, base: lines.head + canonicalBody + lines.tail };
}

/**
 * The scalar lines around JCS(body): `head` = lines 1–4 plus their LFs, `tail` = LF + timestamp.
 * Lets a caller encode the body text once and reuse its bytes (receiver hot path).
 */
export function signatureBaseLines(
  method: unknown,
  path: unknown,
  recipientDid: unknown,
  timestamp: unknown,
): { ok: true; head: string; tail: string } | { ok: false; reason: "invalid_signature_base"; detail: string } {
  // In this order, first failure named (on the receiver's hot path: no per-call table).
  if (!isLine(method, CAPS.method)) return bad("method");
  if (!isLine(path, CAPS.path)) return bad("path");
  if (!isLine(recipientDid, CAPS.recipientDid)) return bad("recipientDid");
  if (!isLine(timestamp, CAPS.timestamp)) return bad("timestamp");
  const m = (method as string).toUpperCase();
  return { ok: true, head: `ink/0.1\n${m}\n${path as string}\n${recipientDid as string}\n`, tail: `\n${timestamp as string}` };
}

export type TransportSignResult =
  | { ok: true; signature: string; authorization: string; base: string }
  | { ok: false; reason: "invalid_signature_base"; detail: string };

/**
 * Sign the §6.1 base; returns the 86-char signature and the ready `Authorization` header value
 * (`INK-Ed25519 <sig>[ keyId=<id>]`; a keyId outside the header charset is left out, [C11]).
 * `sign` is the Ed25519 backend (noble by default).
 */
export function signTransport(input: SignInput, secretKey: Uint8Array, keyId?: string | null, sign: Ed25519Signer = ed25519Sign): TransportSignResult {
  const base = buildSignatureBase(input);
  if (!base.ok) return base;
  const signature = encodeSignature(sign(utf8(base.base), secretKey));
  const header = buildAuthorizationHeader(signature, isHeaderKeyId(keyId) ? keyId : null);
  return { ok: true, signature, authorization: header.ok ? header.header : `INK-Ed25519 ${signature}`, base: base.base };
}

/**
 * Verify a transport signature against one public key. Any malformed input, unbuildable base,
 * malformed signature, non-strict key or mismatch is `false` (fail closed, INK §6.3).
 */
export function verifyTransportSignature(
  input: SignInput,
  signature: unknown,
  publicKey: Uint8Array,
  verifier: Ed25519Verifier = nobleStrictVerifier,
): boolean {
  const sig = decodeSignature(signature);
  if (sig === null) return false;
  const base = buildSignatureBase(input);
  if (!base.ok) return false;
  return verifier(publicKey, utf8(base.base), sig);
}

/** A signature-base scalar: a non-empty string within its cap, free of CR and LF. */
function isLine(value: unknown, cap: number): value is string {
  return typeof value === "string" && value.length > 0 && value.length <= cap && !value.includes("\n") && !value.includes("\r");
}

function bad(detail: string): { ok: false; reason: "invalid_signature_base"; detail: string } {
  return { ok: false, reason: "invalid_signature_base", detail };
}
