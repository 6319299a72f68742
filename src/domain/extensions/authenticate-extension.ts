import type { Ed25519Verifier } from "../../ink/index.ts";
import type { Ctx } from "../context.ts";
import { checkUpToSignature, type AuthenticatedExtension, type ExtensionRequest } from "./internal/seven-checks.ts";

export type { ExtensionRequest };

/**
 * SPEC Authentication §2, the seven checks in SPEC's order, each refusal a 401 with its own code
 * (ext-refusal.ts). A header is read at the check that needs it: Authorization at 1,
 * X-Request-Timestamp at 5, X-Request-Nonce at 6, X-Extension-Signature at 7, so a request
 * failing two checks always reports the earlier. Token verification and the installation's
 * row are cached per cache generation (request-cache.ts, bounded), so a request costs one
 * native verify, its own signature's, and two prepared reads (the generation, the nonce). Nothing is written
 * here: the nonce is recorded with the request's audit event (record-extension-call.ts).
 */
export function authenticateExtension(ctx: Pick<Ctx, "db" | "clock">, input: ExtensionRequest, verify: Ed25519Verifier): AuthenticatedExtension {
  const checked = checkUpToSignature(ctx, input, verify);
  return checked.finish((c) => verify(c.publicKey, c.message, c.signature));
}
