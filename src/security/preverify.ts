import type { Ed25519Verifier } from "../ink/index.ts";
import { nativeStrictVerifier } from "./ed25519-native.ts";

/** One Ed25519 verification to be done: what a verifier is called with. */
export interface VerifyCall {
  publicKey: Uint8Array;
  message: Uint8Array;
  signature: Uint8Array;
}

/**
 * Verifies batches of calls elsewhere (adapters/crypto-batch.ts: worker threads), each with
 * nativeStrictVerifier, so a verdict from it is the verdict this thread would compute.
 */
export interface SignaturePool {
  /** Worker threads it may use (0: everything runs on the calling thread; callers skip it). */
  readonly size: number;
  /** The verdicts of `calls`, in their order. Never rejects. */
  verifyAll(calls: VerifyCall[]): Promise<boolean[]>;
}

/**
 * Runs `decide` once with a verifier that records its calls and answers true, has the recorded
 * calls verified by `pool`, then returns a verifier that answers those calls from the verdicts
 * (and verifies anything else on the spot). Running `decide` again with it gives exactly the
 * decision it gives with nativeStrictVerifier: every answer is that function's verdict. `decide`
 * must have no side effects (the INK core's decisions have none).
 */
export async function preverify(pool: SignaturePool, decide: (verifier: Ed25519Verifier) => unknown): Promise<Ed25519Verifier> {
  const calls: VerifyCall[] = [];
  decide((publicKey, message, signature) => {
    calls.push({ publicKey, message, signature });
    return true;
  });
  const verdicts = await pool.verifyAll(calls);
  return (publicKey, message, signature) => {
    const i = calls.findIndex((c) => same(c.publicKey, publicKey) && same(c.message, message) && same(c.signature, signature));
    return i >= 0 ? verdicts[i]! : nativeStrictVerifier(publicKey, message, signature);
  };
}

function same(a: Uint8Array, b: Uint8Array): boolean {
  if (a === b) return true;
  if (!(a instanceof Uint8Array) || !(b instanceof Uint8Array) || a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}
