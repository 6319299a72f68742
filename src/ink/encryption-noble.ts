// noble's pure-JS primitives for sealed envelopes (encryption.ts), for programs without a native
// backend. Kept out of encryption.ts: importing @noble/ciphers' AES builds its tables and
// @noble/curves' ed25519 module builds its curves, which a program with native primitives (the
// node) never needs to pay for at start.
import { gcm } from "@noble/ciphers/aes.js";
import { x25519 } from "@noble/curves/ed25519.js";
import type { EnvelopeCrypto, X25519Backend } from "./encryption.ts";

/** noble's X25519 (RFC 7748). */
export const nobleX25519: X25519Backend = {
  sharedSecret: (secretKey, publicKey) => x25519.getSharedSecret(secretKey, publicKey),
  publicKey: (secretKey) => x25519.getPublicKey(secretKey),
};

/** noble's X25519 and AES-256-GCM. */
export const nobleEnvelopeCrypto: EnvelopeCrypto = {
  x25519: nobleX25519,
  aesGcmSeal: (key, iv, aad, plaintext) => gcm(key, iv, aad).encrypt(plaintext),
  aesGcmOpen: (key, iv, aad, sealed) => {
    try {
      return gcm(key, iv, aad).decrypt(sealed);
    } catch {
      return null; // the tag does not authenticate (lengths are checked before the call)
    }
  },
};
