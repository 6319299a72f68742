import type { Ed25519Verifier } from "../../ink/index.ts";
import type { BatchedCrypto } from "../../security/batched-crypto.ts";
import type { Ctx } from "../context.ts";
import { checkUpToSignature, type AuthenticatedExtension, type ExtensionRequest } from "./internal/seven-checks.ts";

/**
 * authenticateExtension's checks with check 7's verification batched onto a worker thread with the other
 * requests of the turn (adapters/crypto-batch.ts; docs/decisions/extensions.md §13): checks 1–6
 * run here first, in order, so a request failing one never reaches the batch. The verdicts are
 * nativeStrictVerifier's, the decision authenticateExtension's.
 */
export async function authenticateExtensionBatched(ctx: Pick<Ctx, "db" | "clock">, input: ExtensionRequest, verify: Ed25519Verifier, crypto: BatchedCrypto): Promise<AuthenticatedExtension> {
  const checked = checkUpToSignature(ctx, input, verify);
  const verdicts = await crypto.verifyAll(checked.calls);
  return checked.finish((_, i) => verdicts[i]!);
}
