// The native envelope primitives (node:crypto's AES-256-GCM with the native X25519) decide every
// sealed envelope as noble's do: the same ciphertext and tag for the same key, IV, AAD and
// plaintext; a refusal (null) exactly where noble's gcm throws, for every bit of the ciphertext,
// tag, IV, AAD or key changed and for truncated input; and the same decision on every
// payload-encryption case of the conformance corpus and on sealed intents end to end.
import { describe, expect, test } from "bun:test";
import { nobleEnvelopeCrypto } from "../../src/ink/encryption-noble.ts";
import { openEnvelope, prepareOutbound, sealEnvelope } from "../../src/ink/index.ts";
import { nativeEnvelopeCrypto } from "../../src/security/envelope-crypto-native.ts";
import { hex, loadVectorFiles } from "../ink/conformance/fixtures.ts";
import { WORDMARK } from "../ink/conformance/outcome.ts";
import { alice, BOB, bobEncryption, bobEncryptionPublic, sealInputFor } from "../ink/helpers.ts";
import { seededBytes } from "../helpers/seeded-bytes.ts";

const { bytes, below } = seededBytes(0xae5);
const noble = nobleEnvelopeCrypto;
const native = nativeEnvelopeCrypto;
const flip = (b: Uint8Array, bit: number) => {
  const c = Uint8Array.from(b);
  c[bit >> 3]! ^= 1 << (bit & 7);
  return c;
};

describe("native AES-256-GCM = noble's", () => {
  test("the same sealed bytes for plaintexts and AADs of many lengths, and each opens the other's", () => {
    for (const length of [0, 1, 15, 16, 17, 31, 32, 33, 255, 1024, 4099, 70_001]) {
      const key = bytes(32);
      const iv = bytes(12);
      const aad = bytes(below(300));
      const plaintext = bytes(length);
      const sealed = noble.aesGcmSeal(key, iv, aad, plaintext);
      expect(native.aesGcmSeal(key, iv, aad, plaintext)).toEqual(sealed);
      expect(sealed.length).toBe(length + 16);
      expect(native.aesGcmOpen(key, iv, aad, sealed)).toEqual(plaintext);
      expect(noble.aesGcmOpen(key, iv, aad, sealed)).toEqual(plaintext);
    }
  });

  test("any one bit changed in the ciphertext, tag, IV, AAD or key: both refuse", () => {
    const key = bytes(32);
    const iv = bytes(12);
    const aad = bytes(40);
    const sealed = noble.aesGcmSeal(key, iv, aad, bytes(24));
    const tampered: Array<[Uint8Array, Uint8Array, Uint8Array, Uint8Array]> = [];
    for (let bit = 0; bit < sealed.length * 8; bit++) tampered.push([key, iv, aad, flip(sealed, bit)]);
    for (let bit = 0; bit < 96; bit++) tampered.push([key, flip(iv, bit), aad, sealed]);
    for (let bit = 0; bit < aad.length * 8; bit += 7) tampered.push([key, iv, flip(aad, bit), sealed]);
    for (let bit = 0; bit < 256; bit += 5) tampered.push([flip(key, bit), iv, aad, sealed]);
    tampered.push([key, iv, aad.subarray(1), sealed], [key, iv, new Uint8Array(0), sealed]);
    for (const [k, n, a, s] of tampered) {
      expect(noble.aesGcmOpen(k, n, a, s)).toBeNull();
      expect(native.aesGcmOpen(k, n, a, s)).toBeNull();
    }
  });

  test("truncated or extended sealed texts, and a tag alone: the same answers", () => {
    const key = bytes(32);
    const iv = bytes(12);
    const aad = bytes(8);
    const sealed = noble.aesGcmSeal(key, iv, aad, bytes(20));
    const empty = noble.aesGcmSeal(key, iv, aad, new Uint8Array(0));
    const cases = [sealed.subarray(0, 36 - 1), sealed.subarray(0, 16), sealed.subarray(0, 15), new Uint8Array(0), Uint8Array.of(...sealed, 0), sealed.subarray(1), empty];
    for (const c of cases) expect(native.aesGcmOpen(key, iv, aad, c)).toEqual(noble.aesGcmOpen(key, iv, aad, c));
    expect(native.aesGcmOpen(key, iv, aad, empty)).toEqual(new Uint8Array(0));
  });
});

describe("sealed envelopes under the native primitives", () => {
  test("every payload-encryption case of the conformance corpus: the same decision as noble's", () => {
    const file = loadVectorFiles().find((f) => f.category === "payload-encryption");
    expect(file?.cases.length).toBeGreaterThan(0);
    let opened = 0;
    for (const c of file!.cases) {
      const input = { envelope: c.input.envelope, recipientSecretKeys: hex(c.input.recipientPrivateKeyHex), recipientDid: c.input.recipientDid, wordmark: WORDMARK };
      const want = openEnvelope({ ...input, crypto: noble });
      if (want.ok) opened++;
      expect(openEnvelope({ ...input, crypto: native })).toEqual(want);
    }
    expect(opened).toBeGreaterThan(0);
  });

  test("seal and open: the same envelope with either, each opens the other's, and tampering fails alike", () => {
    const base = { ...sealInputFor("ünïcode 🙂", "nonce-0123456789abcdef"), ephemeralSecretKey: bytes(32), iv: bytes(12) };
    const sealed = sealEnvelope({ ...base, crypto: noble });
    expect(sealEnvelope({ ...base, crypto: native })).toEqual(sealed);
    if (!sealed.ok) throw new Error(sealed.reason);
    const open = (envelope: unknown, crypto = native) => openEnvelope({ envelope, recipientSecretKeys: [bobEncryption], recipientDid: BOB, wordmark: "svc", crypto });
    expect(open(sealed.envelope).ok).toBe(true);
    const variants: unknown[] = [sealed.envelope];
    const ct = sealed.envelope.ciphertext;
    for (let i = 0; i < ct.length; i += 3) variants.push({ ...sealed.envelope, ciphertext: ct.slice(0, i) + (ct[i] === "A" ? "B" : "A") + ct.slice(i + 1) });
    for (const field of ["type", "from", "ephemeralKey", "nonce", "timestamp", "messageNonce"] as const) {
      variants.push({ ...sealed.envelope, [field]: `${sealed.envelope[field]}x` }, { ...sealed.envelope, [field]: sealed.envelope[field].slice(1) });
    }
    variants.push({ ...sealed.envelope, ciphertext: ct.slice(0, 21) }, { ...sealed.envelope, ciphertext: "" });
    for (const v of variants) expect(open(v)).toEqual(open(v, noble));
  });

  test("without a backend, sealing and opening refuse (crypto_unavailable) instead of throwing", () => {
    const base = sealInputFor("x", "nonce-0123456789abcdeg");
    expect(sealEnvelope(base)).toEqual({ ok: false, reason: "crypto_unavailable" });
    expect(sealEnvelope({ ...base, crypto: { x25519: native.x25519 } as never })).toEqual({ ok: false, reason: "crypto_unavailable" });
    const sealed = sealEnvelope({ ...base, crypto: native });
    if (!sealed.ok) throw new Error(sealed.reason);
    expect(openEnvelope({ envelope: sealed.envelope, recipientSecretKeys: [bobEncryption], recipientDid: BOB, wordmark: "svc" })).toEqual({ ok: false, reason: "crypto_unavailable" });
    const outbound = prepareOutbound({ envelope: base.inner, recipient: { agentId: BOB, endpoint: "https://bob.example/ink/v1/x/intent", encryptionKey: bobEncryptionPublic }, secretKey: alice.secretKey, wordmark: "svc", seal: "always" });
    expect(outbound).toEqual({ ok: false, reason: "crypto_unavailable" });
  });
});
