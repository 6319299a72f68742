// Ed25519 under RFC 8032 strict rules, whatever backend does the curve work (INK §1, §6.3).
// The verify backend is a parameter: src/ink stays free of node:* and the app plugs in a native
// verifier wrapped by `createStrictVerifier` (src/security/ed25519-native.ts).
import * as ed from "@noble/ed25519";
import { sha512 } from "@noble/hashes/sha2.js";

/** A synchronous Ed25519 verify. Implementations must return false, never throw, on bad input. */
export type Ed25519Verifier = (publicKey: Uint8Array, message: Uint8Array, signature: Uint8Array) => boolean;

/**
 * A synchronous RFC 8032 Ed25519 sign with a 32-byte seed: 64 signature bytes. Ed25519 is
 * deterministic, so every correct backend gives the same bytes; the default is noble
 * (`ed25519Sign`), the app passes a native one on hot paths (src/security/ed25519-native.ts).
 */
export type Ed25519Signer = (message: Uint8Array, secretKey: Uint8Array) => Uint8Array;

// The group order L, little-endian, for the S < L pre-check.
const L_LE = Uint8Array.from([
  0xed, 0xd3, 0xf5, 0x5c, 0x1a, 0x63, 0x12, 0x58, 0xd6, 0x9c, 0xf7, 0xa2, 0xde, 0xf9, 0xde, 0x14,
  0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x10,
]);

/** True when S (bytes 32..63, little-endian) is below the group order L (RFC 8032 §5.1.7). */
export function isCanonicalS(signature: Uint8Array): boolean {
  if (signature.length !== 64) return false;
  for (let i = 31; i >= 0; i--) {
    const s = signature[32 + i] as number;
    const l = L_LE[i] as number;
    if (s < l) return true;
    if (s > l) return false;
  }
  return false; // S == L
}

/**
 * True for a canonically encoded, non-small-order Ed25519 public key: y < p, no x=0 with the
 * sign bit set, on the curve, and not one of the 8 torsion points. Native backends (BoringSSL)
 * accept all of these (notes/STACK.md §B.5), so this runs once per key before them.
 */
export function isStrictPublicKey(publicKey: Uint8Array): boolean {
  if (!(publicKey instanceof Uint8Array) || publicKey.length !== 32) return false;
  try {
    return !ed.Point.fromBytes(publicKey, false).isSmallOrder();
  } catch {
    return false;
  }
}

/** The default backend: @noble/ed25519 in its strict branch (`zip215: false`). Pure JS, slow. */
export const nobleStrictVerifier: Ed25519Verifier = (publicKey, message, signature) => {
  if (!(publicKey instanceof Uint8Array) || !(message instanceof Uint8Array) || !(signature instanceof Uint8Array)) {
    return false;
  }
  if (publicKey.length !== 32 || signature.length !== 64) return false;
  ensureSha512();
  try {
    return ed.verify(signature, message, publicKey, { zip215: false });
  } catch {
    return false;
  }
};

export type StrictVerifierOptions = { keyCacheSize?: number };

/**
 * Wrap a fast (e.g. native) verify with the strict pre-checks it lacks: S < L on every signature
 * and a canonical, non-small-order public key, validated with noble once per key and cached in a
 * bounded map (oldest verdict evicted first).
 */
export function createStrictVerifier(fastVerify: Ed25519Verifier, options: StrictVerifierOptions = {}): Ed25519Verifier {
  const limit = Math.max(1, options.keyCacheSize ?? 1024);
  const verdicts = new Map<string, boolean>();
  // The same sender key verifies both signatures of a message: remember the last verdict.
  const lastKey = new Uint8Array(32);
  let lastOk: boolean | null = null;
  return (publicKey, message, signature) => {
    if (!(publicKey instanceof Uint8Array) || !(message instanceof Uint8Array) || !(signature instanceof Uint8Array)) {
      return false;
    }
    if (publicKey.length !== 32 || !isCanonicalS(signature)) return false;
    let ok: boolean | undefined;
    if (lastOk !== null && sameKey(lastKey, publicKey)) ok = lastOk;
    else {
      const id = keyId(publicKey);
      ok = verdicts.get(id);
      if (ok === undefined) {
        ok = isStrictPublicKey(publicKey);
        if (verdicts.size >= limit) verdicts.delete(verdicts.keys().next().value as string);
        verdicts.set(id, ok);
      }
      lastKey.set(publicKey);
      lastOk = ok;
    }
    if (!ok) return false;
    try {
      return fastVerify(publicKey, message, signature) === true;
    } catch {
      return false;
    }
  };
}

export type Ed25519KeyPair = { secretKey: Uint8Array; publicKey: Uint8Array };

/** Public key of a 32-byte Ed25519 secret key (seed). Throws on a wrong-length key (misuse). */
export function ed25519PublicKey(secretKey: Uint8Array): Uint8Array {
  ensureSha512();
  return ed.getPublicKey(secretKey);
}

/** Deterministic Ed25519 signature (RFC 8032). Throws on a wrong-length key (misuse). */
export function ed25519Sign(message: Uint8Array, secretKey: Uint8Array): Uint8Array {
  ensureSha512();
  return ed.sign(message, secretKey);
}

/** A fresh key pair from the web-standard CSPRNG, or from a given 32-byte seed (tests). */
export function generateEd25519KeyPair(seed?: Uint8Array): Ed25519KeyPair {
  const secretKey = seed ?? crypto.getRandomValues(new Uint8Array(32));
  return { secretKey, publicKey: ed25519PublicKey(secretKey) };
}

// noble's sync API needs a sync SHA-512; setting it is idempotent and shared with other users.
function ensureSha512(): void {
  if (ed.hashes.sha512 === undefined) ed.hashes.sha512 = sha512;
}

function sameKey(a: Uint8Array, b: Uint8Array): boolean {
  for (let i = 0; i < 32; i++) if (a[i] !== b[i]) return false;
  return true;
}

function keyId(publicKey: Uint8Array): string {
  return String.fromCharCode.apply(null, publicKey as unknown as number[]);
}
