// The native X25519 backend computes noble's RFC 7748 function: same shared secrets and public
// keys, and a refusal (a throw or an all-zero secret: both `zero_shared_secret`) exactly where
// noble refuses. Sealing and opening give the same envelopes and the same decisions under both,
// over the conformance corpus's payload-encryption cases too.
import { describe, expect, test } from "bun:test";
import { openEnvelope, sealEnvelope, type X25519Backend } from "../../src/ink/index.ts";
import { nobleEnvelopeCrypto, nobleX25519 } from "../../src/ink/encryption-noble.ts";
import { nativeX25519 } from "../../src/security/x25519-native.ts";
import { hex, loadVectorFiles } from "../ink/conformance/fixtures.ts";
import { WORDMARK } from "../ink/conformance/outcome.ts";
import { BOB, bobEncryption, sealInputFor } from "../ink/helpers.ts";
import { seededBytes } from "../helpers/seeded-bytes.ts";

const P = 2n ** 255n - 19n;
const le = (n: bigint) => Uint8Array.from({ length: 32 }, (_, i) => Number((n >> BigInt(8 * i)) & 255n));
// u = 0, 1, p−1, p, p+1, 2^255−1, 2^256−1 (non-canonical, high bit set), the base point, and the
// two order-8 points of RFC 7748's Curve25519 (low order: the shared secret is all zero).
const EDGE_PUBLIC_KEYS = [
  0n,
  1n,
  P - 1n,
  P,
  P + 1n,
  2n ** 255n - 1n,
  2n ** 256n - 1n,
  9n,
  325606250916557431795983626356110631294008115727848805560023387167927233504n,
  39382357235489614581723060781553021112529911719440698176882885853963445705823n,
].map(le);

const { bytes } = seededBytes(0x25519);
/** noble's AES-GCM with the given X25519: only the X25519 backend differs between the two runs. */
const withX25519 = (x25519: X25519Backend) => ({ ...nobleEnvelopeCrypto, x25519 });

/** The outcome the INK core takes from a backend: the bytes, or a refusal (throw or all zero). */
function outcome(backend: X25519Backend, secret: Uint8Array, publicKey: Uint8Array): string {
  try {
    const shared = backend.sharedSecret(secret, publicKey);
    return shared.every((b) => b === 0) ? "refused" : Buffer.from(shared).toString("hex");
  } catch {
    return "refused";
  }
}

describe("native X25519 = noble's", () => {
  test("shared secrets over edge and seeded public keys, and public keys of seeded and extreme secrets", () => {
    const secrets = [bytes(32), bytes(32), new Uint8Array(32), new Uint8Array(32).fill(255)];
    const publics = [...EDGE_PUBLIC_KEYS, ...Array.from({ length: 60 }, () => bytes(32))];
    let refused = 0;
    for (const s of secrets) {
      for (const p of publics) {
        const expected = outcome(nobleX25519, s, p);
        if (expected === "refused") refused++;
        expect(outcome(nativeX25519, s, p)).toBe(expected);
      }
      expect(nativeX25519.publicKey(s)).toEqual(nobleX25519.publicKey(s));
    }
    for (let i = 0; i < 40; i++) {
      const s = bytes(32);
      expect(nativeX25519.publicKey(s)).toEqual(nobleX25519.publicKey(s));
      expect(nativeX25519.publicKey(Uint8Array.from(s))).toEqual(nobleX25519.publicKey(s)); // a copy
    }
    expect(refused).toBeGreaterThan(0); // the low-order points were exercised
  });

  test("a key that is not 32 bytes throws (misuse)", () => {
    expect(() => nativeX25519.publicKey(new Uint8Array(31))).toThrow();
    expect(() => nativeX25519.sharedSecret(bobEncryption, new Uint8Array(33))).toThrow();
  });
});

describe("sealing and opening under both backends", () => {
  const base = { ...sealInputFor("ünïcode 🙂", "nonce-0123456789abcdef"), ephemeralSecretKey: bytes(32), iv: bytes(12), crypto: nobleEnvelopeCrypto };

  test("the same sealed envelope, opened by either backend; refusals alike", () => {
    const noble = sealEnvelope(base);
    expect(sealEnvelope({ ...base, crypto: withX25519(nativeX25519) })).toEqual(noble);
    if (!noble.ok) throw new Error(noble.reason);
    for (const x25519 of [nobleX25519, nativeX25519]) {
      const open = (envelope: unknown, keys = [bobEncryption]) => openEnvelope({ envelope, recipientSecretKeys: keys, recipientDid: BOB, wordmark: "svc", crypto: withX25519(x25519) });
      expect(open(noble.envelope)).toEqual(openEnvelope({ envelope: noble.envelope, recipientSecretKeys: [bobEncryption], recipientDid: BOB, wordmark: "svc", crypto: nobleEnvelopeCrypto }));
      expect(open(noble.envelope).ok).toBe(true);
      const lowOrder = Buffer.from(EDGE_PUBLIC_KEYS[0]!).toString("base64url");
      expect(open({ ...noble.envelope, ephemeralKey: lowOrder })).toEqual({ ok: false, reason: "zero_shared_secret" });
      expect(open(noble.envelope, [new Uint8Array(32).fill(7)])).toEqual({ ok: false, reason: "aead_failure" });
      expect(sealEnvelope({ ...base, recipientPublicKey: EDGE_PUBLIC_KEYS[8]!, crypto: withX25519(x25519) })).toEqual({ ok: false, reason: "zero_shared_secret" });
    }
  });

  test("every payload-encryption case of the conformance corpus: the same decision under native X25519", () => {
    const file = loadVectorFiles().find((f) => f.category === "payload-encryption");
    expect(file?.cases.length).toBeGreaterThan(0);
    for (const c of file!.cases) {
      const input = { envelope: c.input.envelope, recipientSecretKeys: hex(c.input.recipientPrivateKeyHex), recipientDid: c.input.recipientDid, wordmark: WORDMARK };
      expect(openEnvelope({ ...input, crypto: withX25519(nativeX25519) })).toEqual(openEnvelope({ ...input, crypto: nobleEnvelopeCrypto }));
    }
  });
});
