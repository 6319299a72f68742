// WebCrypto only (globalThis.crypto.subtle, present in Node 20+ and Bun): SHA-256 and Ed25519.
import { encodeEd25519Multibase, fromBase64url, toBase64url, toHex, utf8 } from "./encoding.ts";

const subtle = (): SubtleCrypto => {
  const s = globalThis.crypto?.subtle;
  if (!s) throw new Error("WebCrypto (globalThis.crypto.subtle) is required: Node 20+ or Bun");
  return s;
};

// The fixed DER prefix of a PKCS#8 Ed25519 private key (RFC 8410): the 32-byte seed follows it.
const PKCS8_ED25519_PREFIX = Uint8Array.from([0x30, 0x2e, 0x02, 0x01, 0x00, 0x30, 0x05, 0x06, 0x03, 0x2b, 0x65, 0x70, 0x04, 0x22, 0x04, 0x20]);

export async function sha256Hex(data: Uint8Array | string): Promise<string> {
  const bytes = typeof data === "string" ? utf8(data) : data;
  return toHex(new Uint8Array(await subtle().digest("SHA-256", bytes as Uint8Array<ArrayBuffer>)));
}

/**
 * A signing key: the 32-byte Ed25519 seed (bytes, or base64url text as `generateKeyPair` prints it)
 * or an already imported WebCrypto key.
 */
export type PrivateKeyInput = Uint8Array | string | CryptoKey;

export async function importPrivateKey(input: PrivateKeyInput): Promise<CryptoKey> {
  if (typeof input === "object" && !(input instanceof Uint8Array)) return input;
  const seed = typeof input === "string" ? fromBase64url(input.trim()) : input;
  if (seed === null || seed.length !== 32) throw new TypeError("privateKey: a 32-byte Ed25519 seed (bytes or base64url) or a CryptoKey");
  const pkcs8 = new Uint8Array(48);
  pkcs8.set(PKCS8_ED25519_PREFIX);
  pkcs8.set(seed, 16);
  return subtle().importKey("pkcs8", pkcs8, { name: "Ed25519" }, false, ["sign"]);
}

/** Ed25519 signature over `message`, base64url without padding (86 characters). */
export async function signEd25519(key: CryptoKey, message: Uint8Array): Promise<string> {
  return toBase64url(new Uint8Array(await subtle().sign({ name: "Ed25519" }, key, message as Uint8Array<ArrayBuffer>)));
}

export async function verifyEd25519(publicKey: Uint8Array, message: Uint8Array, signature: Uint8Array): Promise<boolean> {
  if (publicKey.length !== 32 || signature.length !== 64) return false;
  try {
    const key = await subtle().importKey("raw", publicKey as Uint8Array<ArrayBuffer>, { name: "Ed25519" }, false, ["verify"]);
    return await subtle().verify({ name: "Ed25519" }, key, signature as Uint8Array<ArrayBuffer>, message as Uint8Array<ArrayBuffer>);
  } catch {
    return false;
  }
}

/**
 * A fresh extension key: `privateKey` is the base64url seed to keep secret (pass it to KithClient),
 * `publicKeyMultibase` goes into the manifest's `keys[]`.
 */
export async function generateKeyPair(): Promise<{ privateKey: string; publicKeyMultibase: string }> {
  const pair = (await subtle().generateKey({ name: "Ed25519" }, true, ["sign", "verify"])) as unknown as CryptoKeyPair;
  const pkcs8 = new Uint8Array(await subtle().exportKey("pkcs8", pair.privateKey));
  const raw = new Uint8Array(await subtle().exportKey("raw", pair.publicKey));
  return { privateKey: toBase64url(pkcs8.slice(16)), publicKeyMultibase: encodeEd25519Multibase(raw) };
}

/** The multibase public key of a seed, for checking which manifest key a secret belongs to. */
export async function publicKeyOf(seed: Uint8Array | string): Promise<string> {
  const bytes = typeof seed === "string" ? fromBase64url(seed.trim()) : seed;
  if (bytes === null || bytes.length !== 32) throw new TypeError("seed: 32 bytes");
  const pkcs8 = new Uint8Array(48);
  pkcs8.set(PKCS8_ED25519_PREFIX);
  pkcs8.set(bytes, 16);
  const key = await subtle().importKey("pkcs8", pkcs8, { name: "Ed25519" }, true, ["sign"]);
  // A private JWK carries the public key as `x`.
  const jwk = await subtle().exportKey("jwk", key);
  const x = fromBase64url(jwk.x ?? "");
  if (x === null) throw new Error("could not derive the public key");
  return encodeEd25519Multibase(x);
}
