// The native Ed25519 backend: fast bare verify, and the strict wrapper the app must use.
import { describe, expect, test } from "bun:test";
import { ed25519Sign, generateEd25519KeyPair } from "../../src/ink/index.ts";
import { nativeEd25519Verify, nativeStrictVerifier } from "../../src/security/ed25519-native.ts";

const msg = new TextEncoder().encode("native backend");

describe("nativeEd25519Verify / nativeStrictVerifier", () => {
  test("verify many keys (cache churn) and alternate keys (last-key memo) correctly", () => {
    const pairs = Array.from({ length: 40 }, (_, i) => generateEd25519KeyPair(Uint8Array.from({ length: 32 }, (_, k) => (i * 7 + k) & 255)));
    const sigs = pairs.map((p) => ed25519Sign(msg, p.secretKey));
    for (let round = 0; round < 3; round++) {
      pairs.forEach((p, i) => {
        expect(nativeStrictVerifier(p.publicKey, msg, sigs[i] as Uint8Array)).toBe(true);
        expect(nativeStrictVerifier(p.publicKey, msg, sigs[(i + 1) % sigs.length] as Uint8Array)).toBe(false);
      });
    }
  });
  test("never throws on malformed input", () => {
    const p = generateEd25519KeyPair(new Uint8Array(32).fill(3));
    const sig = ed25519Sign(msg, p.secretKey);
    expect(nativeEd25519Verify(new Uint8Array(31), msg, sig)).toBe(false);
    expect(nativeEd25519Verify(p.publicKey, msg, new Uint8Array(63))).toBe(false);
    expect(nativeEd25519Verify(new Uint8Array(32).fill(0xff), msg, sig)).toBe(false);
    expect(nativeStrictVerifier(new Uint8Array(32).fill(0xff), msg, sig)).toBe(false);
  });
  test("a mutated key or message after a memo hit is not confused with the memoized key", () => {
    const p = generateEd25519KeyPair(new Uint8Array(32).fill(4));
    const sig = ed25519Sign(msg, p.secretKey);
    expect(nativeStrictVerifier(p.publicKey, msg, sig)).toBe(true);
    const other = new Uint8Array(p.publicKey);
    other[5] = (other[5] as number) ^ 1;
    expect(nativeStrictVerifier(other, msg, sig)).toBe(false);
    expect(nativeStrictVerifier(p.publicKey, msg, sig)).toBe(true);
  });
});
