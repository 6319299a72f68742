import type { SignaturePool, VerifyCall } from "./preverify.ts";

/**
 * Ed25519 verifies and signs batched across requests (adapters/crypto-batch.ts): the calls made
 * during one turn of the event loop go to a worker thread in one message, so a request's serving
 * thread pays for packing a few hundred bytes instead of the curve work (docs/decisions/extensions.md §13).
 * Every verdict is nativeStrictVerifier's and every signature nativeEd25519Sign's (Ed25519 is
 * deterministic: the same bytes as signing in place). Promises resolve in the order of the calls.
 */
export interface BatchedCrypto extends SignaturePool {
  /** Worker threads it may use; 0: callers take their synchronous path (the batcher is never used). */
  readonly size: number;
  /** The signature of `message` by the 32-byte Ed25519 seed `secretKey`. Never rejects. */
  sign(message: Uint8Array, secretKey: Uint8Array): Promise<Uint8Array>;
}

export type { VerifyCall };
