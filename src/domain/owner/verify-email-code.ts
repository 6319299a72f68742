import { transaction } from "../../db/client.ts";
import { normalizeCode, sha256Base64url } from "../../security/one-time-code.ts";
import { consumeRateLimit, enforce } from "../rate-limit/consume-rate-limit.ts";
import type { Ctx } from "../context.ts";
import { DomainError, invalidInput } from "../errors.ts";
import { tryCode } from "./code-store.ts";
import { findOwnerEmail, normalizeEmail, type SignInDeps, type TokenPair } from "./owner.ts";
import { startSession } from "./start-session.ts";

export const INVALID_CODE = "the code is wrong, expired or already used";
/** Per address, durable. Above the 25 tries 5 codes allow, so it never stands in the owner's way. */
export const VERIFY_PER_ADDRESS = { limit: 30, windowMs: 60 * 60 * 1000 };

/**
 * `POST /auth/email/verify`: the owner's address and its live code give a TokenPair. A wrong
 * code counts a try (5 per code); wrong, expired, used, exhausted and non-owner all get the same
 * answer. Every attempt, for any address, writes its per-address count in the same transaction,
 * so an owner's failed try (which also counts against the code) costs the same commit as a
 * stranger's and the timing does not single out the owner's address.
 */
export async function verifyEmailCode(ctx: Ctx, input: { email: string; code: string }, deps: Pick<SignInDeps, "codeKey" | "ownerEmail" | "tokens">): Promise<TokenPair> {
  if (ctx.actor.kind !== "public") throw new DomainError("forbidden", "sign-in is anonymous");
  const email = normalizeEmail(input.email);
  const candidate = normalizeCode(input.code);
  const owner = findOwnerEmail(ctx.db, deps.ownerEmail);
  const now = ctx.clock.now();
  const outcome = transaction(ctx.db, (tx) => {
    const limit = consumeRateLimit(ctx, "email-verify", sha256Base64url(email), VERIFY_PER_ADDRESS);
    if (!limit.allowed) return { limit, ok: false };
    return { limit, ok: owner !== null && owner === email && tryCode(tx, { email, candidate, now, codeKey: deps.codeKey }) };
  });
  enforce(outcome.limit, "sign-in attempts for this address");
  if (!outcome.ok) throw invalidInput(INVALID_CODE);
  return startSession(ctx, deps, "email");
}
