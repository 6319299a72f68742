import { createCipheriv, createDecipheriv, randomBytes, scryptSync, timingSafeEqual } from "node:crypto";

/**
 * Passphrase encryption for data at rest (the agent key file): scrypt derives a 256-bit key,
 * AES-256-GCM encrypts, and the caller's `aad` binds context that stays in clear text (the public
 * half of the key file), so swapping it breaks decryption. Parameters travel with the box, so they
 * can be raised later without breaking old files.
 */
export interface SealedBox {
  alg: "scrypt-aes-256-gcm";
  kdf: { N: number; r: number; p: number; salt: string };
  nonce: string;
  ciphertext: string;
}

export const DEFAULT_SCRYPT = { N: 2 ** 17, r: 8, p: 1 } as const;

/** scrypt's memory is about 128·r·(N + p) bytes; this is the most a key file may ask for. */
const SCRYPT_MAX_MEMORY = 256 * 1024 * 1024;
/** CPU cost N·r·p at most 16x the default's (~5 s on a Raspberry Pi 4 instead of ~0.3 s). */
const SCRYPT_MAX_WORK = 16 * DEFAULT_SCRYPT.N * DEFAULT_SCRYPT.r * DEFAULT_SCRYPT.p;

/**
 * Why a box's scrypt parameters cannot be used, or null when they can: N a power of two from 2^10,
 * r 1-32, p 1-16, within the memory and work bounds above. The parameters come from a file, so
 * they are checked before scrypt runs (it would throw, or spend minutes, on hostile values).
 */
export function scryptParamsProblem(kdf: unknown): string | null {
  const { N, r, p } = (kdf ?? {}) as { N?: unknown; r?: unknown; p?: unknown };
  const int = (x: unknown, min: number, max: number): x is number => typeof x === "number" && Number.isInteger(x) && x >= min && x <= max;
  if (!int(N, 2 ** 10, 2 ** 24) || (N & (N - 1)) !== 0) return `scrypt N must be a power of two from 1024 (2^10) to 16777216 (2^24), got ${JSON.stringify(N)}`;
  if (!int(r, 1, 32)) return `scrypt r must be an integer from 1 to 32, got ${JSON.stringify(r)}`;
  if (!int(p, 1, 16)) return `scrypt p must be an integer from 1 to 16, got ${JSON.stringify(p)}`;
  if (128 * r * (N + p + 2) > SCRYPT_MAX_MEMORY) return `scrypt N=${N}, r=${r} need more than ${SCRYPT_MAX_MEMORY / 2 ** 20} MiB of memory`;
  if (N * r * p > SCRYPT_MAX_WORK) return `scrypt N=${N}, r=${r}, p=${p} are more than 16 times the default work`;
  return null;
}

export function sealWithPassphrase(
  plaintext: Uint8Array,
  passphrase: string,
  aad: Uint8Array,
  params: { N: number; r: number; p: number } = DEFAULT_SCRYPT,
): SealedBox {
  const salt = randomBytes(16);
  const nonce = randomBytes(12);
  const key = deriveKey(passphrase, salt, params);
  const cipher = createCipheriv("aes-256-gcm", key, nonce);
  cipher.setAAD(aad);
  const body = Buffer.concat([cipher.update(plaintext), cipher.final(), cipher.getAuthTag()]);
  key.fill(0);
  return {
    alg: "scrypt-aes-256-gcm",
    kdf: { ...params, salt: salt.toString("base64url") },
    nonce: nonce.toString("base64url"),
    ciphertext: body.toString("base64url"),
  };
}

/** Returns the plaintext, or null when the passphrase is wrong or anything was tampered with. */
export function openWithPassphrase(box: SealedBox, passphrase: string, aad: Uint8Array): Uint8Array | null {
  if (scryptParamsProblem(box.kdf) !== null) return null;
  const { N, r, p } = box.kdf;
  if (typeof box.kdf.salt !== "string" || typeof box.nonce !== "string" || typeof box.ciphertext !== "string") return null;
  const salt = Buffer.from(box.kdf.salt, "base64url");
  const nonce = Buffer.from(box.nonce, "base64url");
  const body = Buffer.from(box.ciphertext, "base64url");
  if (nonce.length !== 12 || body.length < 16) return null;
  let key: Buffer;
  try {
    key = deriveKey(passphrase, salt, { N, r, p });
  } catch {
    return null;
  }
  try {
    const decipher = createDecipheriv("aes-256-gcm", key, nonce);
    decipher.setAAD(aad);
    decipher.setAuthTag(body.subarray(body.length - 16));
    return new Uint8Array(Buffer.concat([decipher.update(body.subarray(0, body.length - 16)), decipher.final()]));
  } catch {
    return null;
  } finally {
    key.fill(0);
  }
}

/** Constant-time equality for secrets of possibly different lengths. */
export function secretsEqual(a: Uint8Array | string, b: Uint8Array | string): boolean {
  const x = typeof a === "string" ? Buffer.from(a) : Buffer.from(a);
  const y = typeof b === "string" ? Buffer.from(b) : Buffer.from(b);
  if (x.length !== y.length) {
    timingSafeEqual(x, x); // keep the work comparable; the length itself is not secret
    return false;
  }
  return timingSafeEqual(x, y);
}

function deriveKey(passphrase: string, salt: Uint8Array, params: { N: number; r: number; p: number }): Buffer {
  return scryptSync(passphrase.normalize("NFC"), salt, 32, { ...params, maxmem: 256 * 1024 * 1024 });
}
