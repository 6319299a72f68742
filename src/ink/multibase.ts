// Public keys on the wire: `z` + base58btc(multicodec ‖ 32-byte key) (INK §1).
// Ed25519 multicodec 0xed 0x01 (strings start `z6Mk`); X25519 0xec 0x01 (`z6LS`).
import { base58btc } from "multiformats/bases/base58";

export type KeyKind = "ed25519" | "x25519";

export type DecodedKey = { kind: KeyKind; key: Uint8Array };

const ED25519_CODEC = [0xed, 0x01] as const;
const X25519_CODEC = [0xec, 0x01] as const;
// The reference caps base58 decode input at 1024 chars (INK §1); a key string is ~48.
const MAX_MULTIBASE_CHARS = 1024;

/** Multibase string of a 32-byte Ed25519 public key (`z6Mk…`). */
export function encodeEd25519PublicKey(publicKey: Uint8Array): string {
  return encodeWithCodec(ED25519_CODEC, publicKey);
}

/** Multibase string of a 32-byte X25519 public key (`z6LS…`). */
export function encodeX25519PublicKey(publicKey: Uint8Array): string {
  return encodeWithCodec(X25519_CODEC, publicKey);
}

/**
 * Decode a multibase key string; null unless it is `z` + base58btc of a known 2-byte multicodec
 * followed by exactly 32 bytes. Leading `1`s decode to leading zero bytes, so a padded string
 * fails the multicodec check rather than collapsing onto the same key.
 */
export function decodeMultibaseKey(text: unknown): DecodedKey | null {
  if (typeof text !== "string" || text.length < 2 || text.length > MAX_MULTIBASE_CHARS) return null;
  if (text[0] !== "z") return null;
  const bytes = base58Decode(text, 1);
  if (bytes === null || bytes.length !== 34) return null;
  const key = bytes.slice(2);
  if (bytes[0] === ED25519_CODEC[0] && bytes[1] === ED25519_CODEC[1]) return { kind: "ed25519", key };
  if (bytes[0] === X25519_CODEC[0] && bytes[1] === X25519_CODEC[1]) return { kind: "x25519", key };
  return null;
}

/** The 32-byte Ed25519 key of a multibase string, or null (wrong codec, malformed). */
export function decodeEd25519PublicKey(text: unknown): Uint8Array | null {
  const d = decodeMultibaseKey(text);
  return d !== null && d.kind === "ed25519" ? d.key : null;
}

/** The 32-byte X25519 key of a multibase string, or null (wrong codec, malformed). */
export function decodeX25519PublicKey(text: unknown): Uint8Array | null {
  const d = decodeMultibaseKey(text);
  return d !== null && d.kind === "x25519" ? d.key : null;
}

const B58_INDEX = new Int8Array(128).fill(-1);
for (let i = 0; i < 58; i++) B58_INDEX["123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz".charCodeAt(i)] = i;

/**
 * base58btc decode of `text.slice(start)` (no prefix): leading `1`s become zero bytes, any other
 * character must be in the alphabet. Same output as multiformats' `base58btc.baseDecode` (a
 * property test holds them equal) but several times faster, because a principal is decoded on
 * every inbound message (INK §2.2); multiformats does all encoding.
 */
export function base58Decode(text: string, start = 0): Uint8Array | null {
  let zeros = 0;
  while (start + zeros < text.length && text.charCodeAt(start + zeros) === 0x31) zeros++;
  // Little-endian base-2^16 limbs; two digits (58^2 = 3364) per step keep every product < 2^28,
  // so plain 32-bit integer arithmetic is exact.
  const limbs = new Uint32Array(((text.length - start) >> 1) + 2);
  let used = 0;
  for (let i = start + zeros; i < text.length; ) {
    let chunk = 0;
    let mult = 1;
    for (let k = 0; k < 2 && i < text.length; k++, i++) {
      const c = text.charCodeAt(i);
      const d = c < 128 ? (B58_INDEX[c] as number) : -1;
      if (d < 0) return null;
      chunk = chunk * 58 + d;
      mult *= 58;
    }
    let carry = chunk;
    for (let j = 0; j < used; j++) {
      const x = (limbs[j] as number) * mult + carry;
      limbs[j] = x & 0xffff;
      carry = x >>> 16;
    }
    while (carry > 0) {
      limbs[used++] = carry & 0xffff;
      carry >>>= 16;
    }
  }
  let bytes = used * 2;
  while (bytes > 0 && (((limbs[(bytes - 1) >> 1] as number) >> (((bytes - 1) & 1) * 8)) & 255) === 0) bytes--;
  const out = new Uint8Array(zeros + bytes);
  for (let b = 0; b < bytes; b++) out[out.length - 1 - b] = ((limbs[b >> 1] as number) >> ((b & 1) * 8)) & 255;
  return out;
}

function encodeWithCodec(codec: readonly [number, number], key: Uint8Array): string {
  if (!(key instanceof Uint8Array) || key.length !== 32) throw new TypeError("expected a 32-byte public key");
  const bytes = new Uint8Array(34);
  bytes[0] = codec[0];
  bytes[1] = codec[1];
  bytes.set(key, 2);
  return base58btc.encode(bytes);
}
