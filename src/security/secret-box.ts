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
  const { N, r, p } = box.kdf;
  if (!isSaneParam(N, 2 ** 10, 2 ** 22) || !isSaneParam(r, 1, 32) || !isSaneParam(p, 1, 16)) return null;
  const salt = Buffer.from(box.kdf.salt, "base64url");
  const nonce = Buffer.from(box.nonce, "base64url");
  const body = Buffer.from(box.ciphertext, "base64url");
  if (nonce.length !== 12 || body.length < 16) return null;
  const key = deriveKey(passphrase, salt, { N, r, p });
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

function isSaneParam(n: unknown, min: number, max: number): boolean {
  return typeof n === "number" && Number.isInteger(n) && n >= min && n <= max;
}
