// The signing backend is a parameter of the INK core's signers, as the verifier is: the outbox
// passes the native one (BoringSSL) instead of noble's pure JS. Ed25519 is deterministic (RFC 8032
// §5.1.6), so both must give the same bytes for every key and message, and so must everything
// signed with them.
import { describe, expect, test } from "bun:test";
import {
  buildSignedEnvelope,
  ed25519Sign,
  type EnvelopeDraft,
  generateEd25519KeyPair,
  nobleStrictVerifier,
  prepareOutbound,
  signBody,
  signTransport,
} from "../../src/ink/index.ts";
import { nativeEd25519Sign } from "../../src/security/ed25519-native.ts";
import { ALICE, alice, BOB, TS } from "./helpers.ts";

// A seeded generator: the inputs are many and varied, and a failure names one that reproduces.
function xorshift(seed: number) {
  let x = seed >>> 0 || 1;
  return () => {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    return (x >>> 0) / 2 ** 32;
  };
}

describe("native and noble Ed25519 signing give identical bytes", () => {
  test("600 random keys and messages of 0 to 4 KiB", () => {
    const rand = xorshift(0x5eed);
    const bytes = (n: number) => Uint8Array.from({ length: n }, () => Math.floor(rand() * 256));
    for (let i = 0; i < 600; i++) {
      const seed = bytes(32);
      const message = bytes(i < 64 ? i : Math.floor(rand() * 4096));
      const noble = ed25519Sign(message, seed);
      const native = nativeEd25519Sign(message, seed);
      expect(Buffer.from(native).toString("hex")).toBe(Buffer.from(noble).toString("hex"));
      // The native signer keeps a key object per key array: the same key again, and a copy.
      expect(nativeEd25519Sign(message, seed)).toEqual(noble);
      expect(nativeEd25519Sign(message, Uint8Array.from(seed))).toEqual(noble);
      expect(nobleStrictVerifier(generateEd25519KeyPair(seed).publicKey, message, native)).toBe(true);
    }
  });

  test("a wrong-length key throws under both (misuse, never a signature)", () => {
    expect(() => ed25519Sign(new Uint8Array(1), new Uint8Array(31))).toThrow();
    expect(() => nativeEd25519Sign(new Uint8Array(1), new Uint8Array(31))).toThrow();
  });
});

describe("the INK core's signers take the backend", () => {
  const draft: EnvelopeDraft = {
    protocol: "ink/0.1",
    id: "msg-1",
    correlationId: "thread-1",
    createdAt: TS,
    from: ALICE,
    to: BOB,
    intent: "ask",
    payload: { question: "Héllo — ünïcode and emoji 🙂, quotes \" and \\ backslashes" },
    timestamp: TS,
    nonce: "nonce-0123456789abcdef",
    signingKeyId: "sig-1",
  };

  test("signBody, buildSignedEnvelope, prepareOutbound and signTransport: same output under both", () => {
    expect(signBody(draft, alice.secretKey, "svc", nativeEd25519Sign)).toEqual(signBody(draft, alice.secretKey, "svc"));
    for (const protocol of ["ink/0.1", "ink/0.2"] as const) {
      const noble = buildSignedEnvelope({ ...draft, protocol }, alice.secretKey, "svc");
      const native = buildSignedEnvelope({ ...draft, protocol }, alice.secretKey, "svc", nativeEd25519Sign);
      expect(native).toEqual(noble);
      if (!noble.ok) throw new Error(noble.reason);
      const recipient = { agentId: BOB, endpoint: "https://bob.example/ink/v1/inbound" };
      const a = prepareOutbound({ envelope: noble.envelope, recipient, secretKey: alice.secretKey, keyId: "sig-1", wordmark: "svc" });
      const b = prepareOutbound({ envelope: noble.envelope, recipient, secretKey: alice.secretKey, keyId: "sig-1", wordmark: "svc", sign: nativeEd25519Sign });
      expect(b).toEqual(a);
      const input = { method: "POST", path: "/ink/v1/inbound", recipientDid: BOB, body: noble.envelope, timestamp: TS };
      expect(signTransport(input, alice.secretKey, "sig-1", nativeEd25519Sign)).toEqual(signTransport(input, alice.secretKey, "sig-1"));
    }
  });

  test("the backend passed is the one that signs", () => {
    const calls: number[] = [];
    const counting = (message: Uint8Array, secretKey: Uint8Array) => {
      calls.push(message.length);
      return nativeEd25519Sign(message, secretKey);
    };
    const built = buildSignedEnvelope(draft, alice.secretKey, "svc", counting);
    if (!built.ok) throw new Error(built.reason);
    prepareOutbound({ envelope: built.envelope, recipient: { agentId: BOB, endpoint: "https://bob.example/ink/v1/inbound" }, secretKey: alice.secretKey, wordmark: "svc", sign: counting });
    signTransport({ method: "POST", path: "/x", recipientDid: BOB, body: { a: 1 }, timestamp: TS }, alice.secretKey, null, counting);
    expect(calls.length).toBe(3);
  });
});
