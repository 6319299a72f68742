// Ed25519 verify calls of every kind of verdict the strict verifier gives, for the tests of what
// verifies off the calling thread (test/adapters/crypto-batch.test.ts).
import { ed25519Sign, generateEd25519KeyPair } from "../../src/ink/index.ts";
import { nativeStrictVerifier } from "../../src/security/ed25519-native.ts";
import type { VerifyCall } from "../../src/security/preverify.ts";

const enc = new TextEncoder();
export const testPairs = Array.from({ length: 8 }, (_, i) => generateEd25519KeyPair(new Uint8Array(32).fill(i + 1)));

/** `n` calls cycling through: valid, wrong message, S >= L, small-order key, another signer's key, odd sizes; messages of varied lengths. */
export function verifyCalls(n: number, salt: string): VerifyCall[] {
  return Array.from({ length: n }, (_, i) => {
    const p = testPairs[i % testPairs.length]!;
    const message = enc.encode(`${salt}-${i}`.repeat(1 + (i % 3)));
    const signature = ed25519Sign(message, p.secretKey);
    switch (i % 6) {
      case 0:
        return { publicKey: p.publicKey, message, signature };
      case 1:
        return { publicKey: p.publicKey, message: enc.encode(`other-${i}`), signature };
      case 2:
        return { publicKey: p.publicKey, message, signature: Uint8Array.from([...signature.subarray(0, 32), ...new Uint8Array(32).fill(0xff)]) };
      case 3:
        return { publicKey: new Uint8Array(32).map((_, k) => (k === 0 ? 1 : 0)), message, signature };
      case 4:
        return { publicKey: testPairs[(i + 1) % testPairs.length]!.publicKey, message, signature };
      default:
        return { publicKey: p.publicKey.subarray(0, 31), message, signature: signature.subarray(0, 63) };
    }
  });
}

/** What the calling thread's strict verifier answers. */
export const expectedVerdicts = (cs: VerifyCall[]) => cs.map((c) => nativeStrictVerifier(c.publicKey, c.message, c.signature));
