// ECIES sealed envelopes (ENCRYPTION §1–§5): X25519 → HKDF-SHA256 → AES-256-GCM with the
// 8-field AAD. Sealing refuses anything its own open rule would reject; opening authenticates
// the outer fields through the AAD and binds inner identity to the outer envelope.
// The X25519 and AES-GCM primitives are a parameter (`EnvelopeCrypto`): noble's pure-JS ones are in
// encryption-noble.ts, so that a program passing native ones never evaluates noble's AES tables
// and curves (~5 ms and ~2 MiB at every start of the node; inbound-performance.md, hx-snap).
import { sha256 } from "@noble/hashes/sha2.js";
import { hkdf } from "@noble/hashes/hkdf.js";
import { decodeUtf8, fromBase64url, isPlainObject, toBase64url, utf8 } from "./bytes.ts";
import { canonicalize } from "./jcs.ts";
import { parseRawBody } from "./raw-body.ts";
import { isReplayNonce } from "./replay.ts";
import { parseTimestamp } from "./timestamp.ts";
import { isAcceptedMessageType, messageType, type Wordmark } from "./wordmark.ts";

const AAD_PREFIX = "ink/0.1:envelope\n";
const HKDF_SALT = utf8("ink/0.1");
const HKDF_INFO = utf8("ink/0.1/encrypt");
const MAX_PLAINTEXT_UNITS = 1_048_576;
const MAX_CIPHERTEXT_CHARS = 1_400_000;

/** The outer envelope as sent; unknown members are tolerated on receipt and not AAD-bound. */
export type SealedEnvelope = {
  protocol: "ink/0.1";
  type: string;
  from: string;
  ephemeralKey: string;
  nonce: string;
  ciphertext: string;
  timestamp: string;
  messageNonce: string;
};

/**
 * The X25519 operations sealing and opening need (RFC 7748). A backend may throw where RFC 7748
 * output is all zero (a low-order public key): either way the result is `zero_shared_secret`.
 */
export type X25519Backend = {
  sharedSecret: (secretKey: Uint8Array, publicKey: Uint8Array) => Uint8Array;
  publicKey: (secretKey: Uint8Array) => Uint8Array;
};

/**
 * The primitives of a sealed envelope: X25519 and AES-256-GCM (32-byte key, 12-byte IV, 16-byte
 * tag appended to the ciphertext). `nobleEnvelopeCrypto` (encryption-noble.ts) is pure JS; the app
 * passes a native one (src/security/envelope-crypto-native.ts). Lengths are checked before
 * either AES call, so a backend only has to decide the tag.
 */
export type EnvelopeCrypto = {
  x25519: X25519Backend;
  aesGcmSeal: (key: Uint8Array, iv: Uint8Array, aad: Uint8Array, plaintext: Uint8Array) => Uint8Array;
  /** The plaintext, or null when the tag does not authenticate ciphertext and AAD. */
  aesGcmOpen: (key: Uint8Array, iv: Uint8Array, aad: Uint8Array, sealed: Uint8Array) => Uint8Array | null;
};

export type SealInput = {
  /** The full, already body-signed inner intent envelope (from = sender, to = recipient). */
  inner: Record<string, unknown>;
  senderDid: string;
  /** Asserted recipient DID; when given, inner `to` must equal it ("" is a refusal). */
  recipientDid?: string;
  /** Recipient's static X25519 public key (card `keys.encryption`, current active entry). */
  recipientPublicKey: Uint8Array;
  /** Outer `timestamp` (strict grammar) and `messageNonce` (the replay nonce, [E3]). */
  timestamp: string;
  messageNonce: string;
  wordmark: Wordmark;
  /** Emit `network.ink.encrypted` instead of the wordmark spelling ([E1]: default wordmark). */
  neutralType?: boolean;
  /** Test hooks for corpus determinism only: never reuse an ephemeral key or IV. */
  ephemeralSecretKey?: Uint8Array;
  iv?: Uint8Array;
  /** X25519 and AES-GCM (nobleEnvelopeCrypto, or a native backend); without it: `crypto_unavailable`. */
  crypto?: EnvelopeCrypto;
};

export type SealFailure =
  | "invalid_sender"
  | "invalid_timestamp"
  | "invalid_message_nonce"
  | "invalid_plaintext"
  | "from_mismatch"
  | "invalid_recipient"
  | "recipient_mismatch"
  | "invalid_recipient_key"
  | "zero_shared_secret"
  | "invalid_test_override"
  | "plaintext_too_large"
  | "crypto_unavailable";

export type SealResult = { ok: true; envelope: SealedEnvelope } | { ok: false; reason: SealFailure };

/** Seal a signed intent envelope for one recipient (ENCRYPTION §4, refusals first). */
export function sealEnvelope(input: SealInput): SealResult {
  if (input === null || typeof input !== "object") return fail("invalid_plaintext");
  const { inner, senderDid, timestamp, messageNonce } = input;
  if (typeof senderDid !== "string" || senderDid.length < 1 || senderDid.length > 512) return fail("invalid_sender");
  if (typeof timestamp !== "string" || parseTimestamp(timestamp) === null) return fail("invalid_timestamp");
  if (!isReplayNonce(messageNonce)) return fail("invalid_message_nonce");
  if (!isPlainObject(inner)) return fail("invalid_plaintext");
  if (inner.from !== senderDid) return fail("from_mismatch");
  if (typeof inner.to !== "string" || inner.to === "") return fail("invalid_recipient");
  if (input.recipientDid !== undefined && inner.to !== input.recipientDid) return fail("recipient_mismatch");
  const recipientKey = input.recipientPublicKey;
  if (!(recipientKey instanceof Uint8Array) || recipientKey.length !== 32) return fail("invalid_recipient_key");
  const eph = input.ephemeralSecretKey ?? crypto.getRandomValues(new Uint8Array(32));
  const iv = input.iv ?? crypto.getRandomValues(new Uint8Array(12));
  if (!(eph instanceof Uint8Array) || eph.length !== 32 || !(iv instanceof Uint8Array) || iv.length !== 12) {
    return fail("invalid_test_override");
  }
  const jcs = canonicalize(inner);
  if (!jcs.ok) return fail(jcs.reason === "too_large" ? "plaintext_too_large" : "invalid_plaintext");
  // Plaintext = JSON of the inner object in insertion order, as the reference sends it.
  const plaintext = JSON.stringify(inner);
  if (plaintext.length > MAX_PLAINTEXT_UNITS) return fail("plaintext_too_large");

  const backend = input.crypto;
  if (!isEnvelopeCrypto(backend)) return fail("crypto_unavailable");
  let shared: Uint8Array;
  let ephemeralPublic: Uint8Array;
  try {
    const dh = backend.x25519;
    shared = dh.sharedSecret(eph, recipientKey);
    ephemeralPublic = dh.publicKey(eph);
  } catch {
    return fail("zero_shared_secret"); // low-order recipient key
  }
  if (isAllZero(shared)) return fail("zero_shared_secret");
  const outer = {
    protocol: "ink/0.1" as const,
    type: input.neutralType === true ? "network.ink.encrypted" : messageType("encrypted", input.wordmark),
    from: senderDid,
    ephemeralKey: toBase64url(ephemeralPublic),
    nonce: toBase64url(iv),
    timestamp,
    messageNonce,
  };
  const aad = buildAad(outer, toBase64url(recipientKey));
  const key = hkdf(sha256, shared, HKDF_SALT, HKDF_INFO, 32);
  const ciphertext = toBase64url(backend.aesGcmSeal(key, iv, aad, utf8(plaintext)));
  return {
    ok: true,
    envelope: {
      protocol: outer.protocol,
      type: outer.type,
      from: outer.from,
      ephemeralKey: outer.ephemeralKey,
      nonce: outer.nonce,
      ciphertext,
      timestamp,
      messageNonce,
    },
  };
}

export type OpenInput = {
  /** The parsed outer envelope as received. */
  envelope: unknown;
  /** Own X25519 private key(s): current first, then the previous one during rotation overlap ([E2]). */
  recipientSecretKeys: Uint8Array | readonly Uint8Array[];
  /** Own recipient DID; mandatory — a missing one rejects, never skips (ENCRYPTION §5 step 10). */
  recipientDid: string | null | undefined;
  wordmark: Wordmark;
  /** X25519 and AES-GCM (nobleEnvelopeCrypto, or a native backend); without it: `crypto_unavailable`. */
  crypto?: EnvelopeCrypto;
};

export type OpenFailure =
  | "invalid_outer"
  | "invalid_ephemeral_key"
  | "invalid_recipient_key"
  | "zero_shared_secret"
  | "invalid_nonce"
  | "invalid_ciphertext"
  | "aead_failure"
  | "invalid_plaintext"
  | "from_mismatch"
  | "missing_recipient_did"
  | "recipient_mismatch"
  | "crypto_unavailable";

export type OpenResult =
  | { ok: true; inner: Record<string, unknown>; plaintext: string; keyIndex: number }
  | { ok: false; reason: OpenFailure };

/** The ENCRYPTION §5 decrypt decision, in order. With several keys, the first key's failure is reported. */
export function openEnvelope(input: OpenInput): OpenResult {
  if (input === null || typeof input !== "object") return fail("invalid_outer");
  const env = input.envelope;
  if (!isPlainObject(env)) return fail("invalid_outer");
  if (env.protocol !== "ink/0.1" || !isAcceptedMessageType(env.type, "encrypted", input.wordmark)) return fail("invalid_outer");
  if (!lenIn(env.from, 1, 512) || !lenIn(env.timestamp, 1, 64) || !lenIn(env.messageNonce, 1, 256)) return fail("invalid_outer");
  if (!lenIn(env.ephemeralKey, 1, 64)) return fail("invalid_ephemeral_key");
  const ephemeral = fromBase64url(env.ephemeralKey as string);
  if (ephemeral === null || ephemeral.length !== 32) return fail("invalid_ephemeral_key");
  const given = input.recipientSecretKeys;
  const keys = given instanceof Uint8Array ? [given] : Array.isArray(given) ? [...given] : [];
  if (keys.length === 0) return fail("invalid_recipient_key");
  const backend = input.crypto;
  if (!isEnvelopeCrypto(backend)) return fail("crypto_unavailable");
  let first: OpenFailure | null = null;
  for (let i = 0; i < keys.length; i++) {
    const r = decryptWith(env, ephemeral, keys[i] as Uint8Array, backend);
    if (!r.ok) {
      first ??= r.reason;
      continue;
    }
    return checkInner(env, r.plaintext, input.recipientDid, i);
  }
  return fail(first ?? "aead_failure");
}

type Decrypted = { ok: true; plaintext: string } | { ok: false; reason: OpenFailure };

function decryptWith(env: Record<string, unknown>, ephemeral: Uint8Array, secret: Uint8Array, crypto: EnvelopeCrypto): Decrypted {
  if (!(secret instanceof Uint8Array) || secret.length !== 32) return fail("invalid_recipient_key");
  let shared: Uint8Array;
  let ownPublic: Uint8Array;
  try {
    shared = crypto.x25519.sharedSecret(secret, ephemeral);
    ownPublic = crypto.x25519.publicKey(secret);
  } catch {
    return fail("zero_shared_secret");
  }
  if (isAllZero(shared)) return fail("zero_shared_secret");
  const key = hkdf(sha256, shared, HKDF_SALT, HKDF_INFO, 32);
  if (!lenIn(env.nonce, 1, 32)) return fail("invalid_nonce");
  const iv = fromBase64url(env.nonce as string);
  if (iv === null || iv.length !== 12) return fail("invalid_nonce");
  if (!lenIn(env.ciphertext, 1, MAX_CIPHERTEXT_CHARS)) return fail("invalid_ciphertext");
  const ct = fromBase64url(env.ciphertext as string);
  if (ct === null || ct.length < 16) return fail("invalid_ciphertext");
  const aad = buildAad(env as Record<string, string>, toBase64url(ownPublic));
  let plain: Uint8Array | null;
  try {
    plain = crypto.aesGcmOpen(key, iv, aad, ct);
  } catch {
    plain = null; // a backend that throws instead (noble's gcm does) fails the same way
  }
  if (plain === null) return fail("aead_failure");
  const plaintext = decodeUtf8(plain);
  return plaintext === null ? fail("invalid_plaintext") : { ok: true, plaintext };
}

function checkInner(env: Record<string, unknown>, plaintext: string, recipientDid: unknown, keyIndex: number): OpenResult {
  if (plaintext.length > MAX_PLAINTEXT_UNITS) return fail("invalid_plaintext");
  // The plaintext is a signed body: run the same raw-text gate as on the wire.
  const parsed = parseRawBody(plaintext, MAX_PLAINTEXT_UNITS * 3);
  if (!parsed.ok || !isPlainObject(parsed.value)) return fail("invalid_plaintext");
  const inner = parsed.value;
  if (inner.from !== env.from) return fail("from_mismatch");
  if (typeof recipientDid !== "string" || recipientDid === "") return fail("missing_recipient_did");
  if (inner.to !== recipientDid) return fail("recipient_mismatch");
  return { ok: true, inner, plaintext, keyIndex };
}

// ENCRYPTION §3: exactly these 8 members, outer strings as received, JCS-sorted.
function buildAad(outer: Record<string, unknown>, recipientKey: string): Uint8Array {
  const aad = canonicalize({
    protocol: "ink/0.1",
    type: outer.type,
    from: outer.from,
    recipientKey,
    ephemeralKey: outer.ephemeralKey,
    nonce: outer.nonce,
    timestamp: outer.timestamp,
    messageNonce: outer.messageNonce,
  });
  // Every member is a checked string, so canonicalization cannot fail; keep the type total anyway.
  return utf8(AAD_PREFIX + (aad.ok ? aad.text : ""));
}

function isEnvelopeCrypto(c: unknown): c is EnvelopeCrypto {
  if (c === null || typeof c !== "object") return false;
  const { x25519, aesGcmSeal, aesGcmOpen } = c as Record<string, unknown>;
  if (typeof aesGcmSeal !== "function" || typeof aesGcmOpen !== "function" || x25519 === null || typeof x25519 !== "object") return false;
  const dh = x25519 as Record<string, unknown>;
  return typeof dh.sharedSecret === "function" && typeof dh.publicKey === "function";
}

function lenIn(value: unknown, min: number, max: number): value is string {
  return typeof value === "string" && value.length >= min && value.length <= max;
}

function isAllZero(bytes: Uint8Array): boolean {
  let acc = 0;
  for (let i = 0; i < bytes.length; i++) acc |= bytes[i] as number;
  return acc === 0;
}

function fail<R extends string>(reason: R): { ok: false; reason: R } {
  return { ok: false, reason };
}
