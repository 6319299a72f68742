import { transaction } from "../../db/client.ts";
import { normalizeCode } from "../../security/one-time-code.ts";
import type { Ctx } from "../context.ts";
import { DomainError, invalidInput } from "../errors.ts";
import { tryCode } from "./code-store.ts";
import { findOwnerEmail, normalizeEmail, type SignInDeps, type TokenPair } from "./owner.ts";
import { startSession } from "./start-session.ts";

export const INVALID_CODE = "the code is wrong, expired or already used";

/**
 * `POST /auth/email/verify`: the owner's address and its live code give a TokenPair. A wrong
 * code counts a try (5 per code); wrong, expired, used, exhausted and non-owner all get the same
 * answer.
 */
export async function verifyEmailCode(ctx: Ctx, input: { email: string; code: string }, deps: Pick<SignInDeps, "codeKey" | "ownerEmail" | "tokens">): Promise<TokenPair> {
  if (ctx.actor.kind !== "public") throw new DomainError("forbidden", "sign-in is anonymous");
  const email = normalizeEmail(input.email);
  const candidate = normalizeCode(input.code);
  const owner = findOwnerEmail(ctx.db, deps.ownerEmail);
  const now = ctx.clock.now();
  const ok = transaction(ctx.db, (tx) => owner !== null && owner === email && tryCode(tx, { email, candidate, now, codeKey: deps.codeKey }));
  if (!ok) throw invalidInput(INVALID_CODE);
  return startSession(ctx, deps, "email");
}
