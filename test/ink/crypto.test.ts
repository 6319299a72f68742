// Strict Ed25519 under both backends, and ECIES seal/open round trips and refusals.
import { describe, expect, test } from "bun:test";
import { x25519 } from "@noble/curves/ed25519.js";
import {
  createStrictVerifier,
  ed25519Sign,
  type Ed25519Verifier,
  generateEd25519KeyPair,
  isCanonicalS,
  isStrictPublicKey,
  nobleStrictVerifier,
  openEnvelope,
  sealEnvelope,
} from "../../src/ink/index.ts";
import { nativeEd25519Verify, nativeStrictVerifier } from "../../src/security/ed25519-native.ts";
import { nobleEnvelopeCrypto } from "../../src/ink/encryption-noble.ts";
import { ALICE, alice, BOB, bobEncryption, bobEncryptionPublic, TS } from "./helpers.ts";

const L = 2n ** 252n + 27742317777372353535851937790883648493n;
const le = (n: bigint) => Uint8Array.from({ length: 32 }, (_, i) => Number((n >> BigInt(8 * i)) & 255n));
const P = 2n ** 255n - 19n;
const msg = new TextEncoder().encode("ink strictness");

// Degenerate "signatures" that satisfy the verification equation for a small-order key:
// R = identity, S = 0 holds for every message (notes/STACK.md §B.5 V2/V3).
const IDENTITY = le(1n);
const ORDER_2 = le(P - 1n);
const IDENTITY_NONCANONICAL = le(P + 1n);
const X0_SIGN_BIT = (() => { const b = le(1n); b[31] = 0x80; return b; })();
const degenerateSig = new Uint8Array(64);
degenerateSig.set(IDENTITY, 0);

const strict: [string, Ed25519Verifier][] = [
  ["noble", nobleStrictVerifier],
  ["native", nativeStrictVerifier],
];

describe("RFC 8032 strict verification under every backend", () => {
  const good = ed25519Sign(msg, alice.secretKey);
  for (const [name, verify] of strict) {
    test(`${name}: valid signature accepts, tampered message rejects`, () => {
      expect(verify(alice.publicKey, msg, good)).toBe(true);
      expect(verify(alice.publicKey, new TextEncoder().encode("other"), good)).toBe(false);
    });
    test(`${name}: S >= L rejects`, () => {
      const s = BigInt(`0x${Buffer.from(good.slice(32)).reverse().toString("hex")}`) + L;
      const bad = new Uint8Array(good);
      bad.set(le(s), 32);
      expect(isCanonicalS(bad)).toBe(false);
      expect(verify(alice.publicKey, msg, bad)).toBe(false);
    });
    test(`${name}: small-order and non-canonical public keys reject`, () => {
      for (const key of [IDENTITY, ORDER_2, IDENTITY_NONCANONICAL, X0_SIGN_BIT]) {
        expect(verify(key, msg, degenerateSig)).toBe(false);
      }
    });
    test(`${name}: wrong lengths and non-bytes reject without throwing`, () => {
      expect(verify(alice.publicKey.slice(1), msg, good)).toBe(false);
      expect(verify(alice.publicKey, msg, good.slice(1))).toBe(false);
      expect(verify("x" as unknown as Uint8Array, msg, good)).toBe(false);
    });
  }

  test("bare native verify accepts what strict rules reject, hence the wrapper", () => {
    // BoringSSL accepts the identity key with R = identity, S = 0 (STACK §B.5 V2).
    expect(nativeEd25519Verify(IDENTITY, msg, degenerateSig)).toBe(true);
    expect(nativeStrictVerifier(IDENTITY, msg, degenerateSig)).toBe(false);
    expect(isStrictPublicKey(IDENTITY)).toBe(false);
    expect(isStrictPublicKey(alice.publicKey)).toBe(true);
  });

  test("the key verdict is computed once per key and the cache stays bounded", () => {
    let calls = 0;
    const v = createStrictVerifier(() => (calls++, true), { keyCacheSize: 2 });
    const good2 = ed25519Sign(msg, alice.secretKey);
    const keys = [1, 2, 3].map((n) => generateEd25519KeyPair(new Uint8Array(32).fill(n)).publicKey);
    for (const k of [...keys, ...keys]) expect(v(k, msg, good2)).toBe(true);
    expect(calls).toBe(6);
    expect(v(IDENTITY, msg, good2)).toBe(false);
    expect(calls).toBe(6); // the fast backend never sees a non-strict key
  });
});

describe("ECIES seal/open", () => {
  const inner = { protocol: "ink/0.2", from: ALICE, to: BOB, intent: "ping", payload: { note: "é 日本" } };
  const base = { inner, senderDid: ALICE, recipientDid: BOB, recipientPublicKey: bobEncryptionPublic, timestamp: TS, messageNonce: "seal-open-nonce-000001", wordmark: "svc" as const, crypto: nobleEnvelopeCrypto };

  test("round trip, svc type spelling, inner protocol may be ink/0.2", () => {
    const s = sealEnvelope(base);
    expect(s.ok).toBe(true);
    if (!s.ok) return;
    expect(s.envelope.type).toBe("network.svc.encrypted");
    expect(s.envelope.protocol).toBe("ink/0.1");
    const o = openEnvelope({ crypto: nobleEnvelopeCrypto, envelope: s.envelope, recipientSecretKeys: [bobEncryption], recipientDid: BOB, wordmark: "svc" });
    expect(o.ok && o.inner).toEqual(inner);
    // The svc spelling is not accepted by a tulpa node (and vice versa); network.ink.* by both.
    expect(openEnvelope({ crypto: nobleEnvelopeCrypto, envelope: s.envelope, recipientSecretKeys: [bobEncryption], recipientDid: BOB, wordmark: "tulpa" }).ok).toBe(false);
    const neutral = sealEnvelope({ ...base, neutralType: true });
    if (!neutral.ok) throw new Error("seal");
    expect(openEnvelope({ crypto: nobleEnvelopeCrypto, envelope: neutral.envelope, recipientSecretKeys: [bobEncryption], recipientDid: BOB, wordmark: "tulpa" }).ok).toBe(true);
  });

  test("fresh ephemeral key and IV per seal", () => {
    const a = sealEnvelope(base);
    const b = sealEnvelope(base);
    if (!a.ok || !b.ok) throw new Error("seal");
    expect(a.envelope.ephemeralKey).not.toBe(b.envelope.ephemeralKey);
    expect(a.envelope.nonce).not.toBe(b.envelope.nonce);
  });

  test("rotation overlap: trial decryption with the current then the previous key", () => {
    const previous = new Uint8Array(32).fill(0x77);
    const s = sealEnvelope({ ...base, recipientPublicKey: x25519.getPublicKey(previous) });
    if (!s.ok) throw new Error("seal");
    const o = openEnvelope({ crypto: nobleEnvelopeCrypto, envelope: s.envelope, recipientSecretKeys: [bobEncryption, previous], recipientDid: BOB, wordmark: "svc" });
    expect(o.ok && o.keyIndex).toBe(1);
    expect(openEnvelope({ crypto: nobleEnvelopeCrypto, envelope: s.envelope, recipientSecretKeys: [bobEncryption], recipientDid: BOB, wordmark: "svc" })).toEqual({ ok: false, reason: "aead_failure" });
  });

  test("every AAD-bound outer field is authenticated", () => {
    const s = sealEnvelope(base);
    if (!s.ok) throw new Error("seal");
    for (const field of ["from", "timestamp", "messageNonce", "nonce", "ephemeralKey", "type"] as const) {
      const t = { ...s.envelope, [field]: field === "type" ? "network.ink.encrypted" : field === "nonce" ? "AAAAAAAAAAAAAAAA" : field === "ephemeralKey" ? Buffer.from(x25519.getPublicKey(new Uint8Array(32).fill(5))).toString("base64url") : `${s.envelope[field]}x` };
      const o = openEnvelope({ crypto: nobleEnvelopeCrypto, envelope: t, recipientSecretKeys: [bobEncryption], recipientDid: BOB, wordmark: "svc" });
      expect(o.ok).toBe(false);
    }
    // Unknown outer members are tolerated and not bound.
    expect(openEnvelope({ crypto: nobleEnvelopeCrypto, envelope: { ...s.envelope, extra: 1 }, recipientSecretKeys: [bobEncryption], recipientDid: BOB, wordmark: "svc" }).ok).toBe(true);
  });

  test("sealer refusals come first (ENCRYPTION §4)", () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ senderDid: "" }, "invalid_sender"],
      [{ timestamp: "yesterday" }, "invalid_timestamp"],
      [{ messageNonce: "short" }, "invalid_message_nonce"],
      [{ inner: [inner] }, "invalid_plaintext"],
      [{ inner: { ...inner, from: BOB } }, "from_mismatch"],
      [{ inner: { ...inner, to: "" } }, "invalid_recipient"],
      [{ recipientDid: "" }, "recipient_mismatch"],
      [{ recipientPublicKey: new Uint8Array(31) }, "invalid_recipient_key"],
      [{ recipientPublicKey: new Uint8Array(32) }, "zero_shared_secret"],
      [{ iv: new Uint8Array(11) }, "invalid_test_override"],
      [{ inner: { ...inner, payload: { n: 1.5 } } }, "invalid_plaintext"],
      [{ inner: { ...inner, payload: { big: "x".repeat(1_100_000) } } }, "plaintext_too_large"],
    ];
    for (const [over, reason] of cases) expect(sealEnvelope({ ...base, ...over } as typeof base)).toEqual({ ok: false, reason } as never);
  });

  test("open never throws on junk", () => {
    for (const junk of [null, 1, "x", [], {}, { protocol: "ink/0.1", type: "network.svc.encrypted" }]) {
      expect(openEnvelope({ crypto: nobleEnvelopeCrypto, envelope: junk, recipientSecretKeys: [bobEncryption], recipientDid: BOB, wordmark: "svc" }).ok).toBe(false);
    }
    expect(openEnvelope({ crypto: nobleEnvelopeCrypto, envelope: {}, recipientSecretKeys: [], recipientDid: BOB, wordmark: "svc" }).ok).toBe(false);
  });
});
