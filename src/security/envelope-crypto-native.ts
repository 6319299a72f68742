// Native primitives of sealed envelopes (ENCRYPTION.md) for the INK core's `EnvelopeCrypto`
// (src/ink/encryption.ts): X25519 (x25519-native.ts) and AES-256-GCM, both BoringSSL through
// Bun's node:crypto. Passing these keeps noble's AES tables and curves out of the node's start
// (inbound-performance.md, hx-snap). The core checks every length before calling (32-byte key,
// 12-byte IV, a sealed text of at least the 16-byte tag), so what is left to decide is the tag;
// test/security/envelope-crypto-native.test.ts holds this equal to noble's on the corpus and on
// every tampered field.
import { createCipheriv, createDecipheriv } from "node:crypto";
import type { EnvelopeCrypto } from "../ink/index.ts";
import { nativeX25519 } from "./x25519-native.ts";

const TAG_BYTES = 16;

export const nativeEnvelopeCrypto: EnvelopeCrypto = {
  x25519: nativeX25519,
  aesGcmSeal: (key, iv, aad, plaintext) => {
    const cipher = createCipheriv("aes-256-gcm", key, iv, { authTagLength: TAG_BYTES });
    cipher.setAAD(aad);
    const head = cipher.update(plaintext);
    const tail = cipher.final();
    const tag = cipher.getAuthTag();
    const out = new Uint8Array(head.length + tail.length + TAG_BYTES);
    out.set(head);
    out.set(tail, head.length);
    out.set(tag, head.length + tail.length);
    return out;
  },
  aesGcmOpen: (key, iv, aad, sealed) => {
    if (sealed.length < TAG_BYTES) return null;
    const body = sealed.subarray(0, sealed.length - TAG_BYTES);
    try {
      const decipher = createDecipheriv("aes-256-gcm", key, iv, { authTagLength: TAG_BYTES });
      decipher.setAuthTag(sealed.subarray(sealed.length - TAG_BYTES));
      decipher.setAAD(aad);
      const head = decipher.update(body);
      const tail = decipher.final(); // throws when the tag does not authenticate
      const out = new Uint8Array(head.length + tail.length);
      out.set(head);
      out.set(tail, head.length);
      return out;
    } catch {
      return null;
    }
  },
};
