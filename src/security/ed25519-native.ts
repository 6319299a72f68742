// Native Ed25519 verify (BoringSSL via Bun's node:crypto), ~20x noble's pure-JS verify on this
// machine class (notes/STACK.md §B.5). This is the one module that imports node:crypto for it.
// BoringSSL accepts small-order and non-canonical public keys, so the exported verifier is
// wrapped by the INK core's strict pre-checks (S < L per signature, key validated once).
import { createPrivateKey, createPublicKey, type KeyObject, sign, verify } from "node:crypto";
import { createStrictVerifier, type Ed25519Signer, type Ed25519Verifier } from "../ink/index.ts";
import { privateKeyCache } from "./private-key-cache.ts";

// DER SubjectPublicKeyInfo prefix for an Ed25519 key (RFC 8410): SEQUENCE { algId 1.3.101.112, BIT STRING }.
const SPKI_PREFIX = Uint8Array.from([0x30, 0x2a, 0x30, 0x05, 0x06, 0x03, 0x2b, 0x65, 0x70, 0x03, 0x21, 0x00]);
const MAX_CACHED_KEYS = 1024;
const keyObjects = new Map<string, KeyObject>();

/**
 * Bare native verify: no strictness beyond what BoringSSL does (it rejects S ≥ L and a
 * non-canonical R, accepts small-order / non-canonical A). Never throws. Use `nativeStrictVerifier`.
 */
export const nativeEd25519Verify: Ed25519Verifier = (publicKey, message, signature) => {
  if (publicKey.length !== 32 || signature.length !== 64) return false;
  try {
    return verify(null, message, keyObject(publicKey), signature);
  } catch {
    return false;
  }
};

/** Native verify under RFC 8032 strict rules: the backend the app should pass to src/ink. */
export const nativeStrictVerifier: Ed25519Verifier = createStrictVerifier(nativeEd25519Verify);

// The same sender key verifies both signatures of a message: keep the last one at hand.
const lastKeyBytes = new Uint8Array(32);
let lastKeyObject: KeyObject | null = null;

function keyObject(publicKey: Uint8Array): KeyObject {
  if (lastKeyObject !== null && sameKey(lastKeyBytes, publicKey)) return lastKeyObject;
  const key = cachedKeyObject(publicKey);
  lastKeyBytes.set(publicKey);
  lastKeyObject = key;
  return key;
}

function sameKey(a: Uint8Array, b: Uint8Array): boolean {
  for (let i = 0; i < 32; i++) if (a[i] !== b[i]) return false;
  return true;
}

function cachedKeyObject(publicKey: Uint8Array): KeyObject {
  const id = Buffer.from(publicKey).toString("latin1");
  let key = keyObjects.get(id);
  if (key === undefined) {
    key = createPublicKey({ key: Buffer.from(withPrefix(SPKI_PREFIX, publicKey)), format: "der", type: "spki" });
    if (keyObjects.size >= MAX_CACHED_KEYS) keyObjects.delete(keyObjects.keys().next().value as string);
    keyObjects.set(id, key);
  }
  return key;
}

// DER PKCS#8 prefix of an Ed25519 private key (RFC 8410), followed by the 32-byte seed.
const PKCS8_PREFIX = Uint8Array.from([0x30, 0x2e, 0x02, 0x01, 0x00, 0x30, 0x05, 0x06, 0x03, 0x2b, 0x65, 0x70, 0x04, 0x22, 0x04, 0x20]);
const privateKey = privateKeyCache((secretKey) => {
  const raw = withPrefix(PKCS8_PREFIX, secretKey);
  const der = Buffer.from(raw.buffer, raw.byteOffset, raw.length); // shares raw's memory: zeroed below
  const key = createPrivateKey({ key: der, format: "der", type: "pkcs8" });
  der.fill(0);
  return key;
});

/**
 * Native Ed25519 signing with the node's own key, for hot paths that sign per request (an
 * extension call's audit event): ~10x noble's sign. The vault hands out the same key bytes each
 * time, so the KeyObject is kept per key array (private-key-cache.ts; it never leaves this module). The INK
 * core's signers take it as their `sign` backend; it gives noble's bytes (test/ink/signers.test.ts).
 */
export const nativeEd25519Sign: Ed25519Signer = (message, secretKey) => {
  // As noble's sign: a key of the wrong length is misuse and throws (it would be zero-padded below).
  if (!(secretKey instanceof Uint8Array) || secretKey.length !== 32) throw new TypeError("expected a 32-byte Ed25519 secret key");
  return new Uint8Array(sign(null, message, privateKey(secretKey)));
};

/** A 32-byte key behind its DER prefix (RFC 8410). */
function withPrefix(prefix: Uint8Array, key: Uint8Array): Uint8Array {
  const der = new Uint8Array(prefix.length + 32);
  der.set(prefix);
  der.set(key, prefix.length);
  return der;
}
