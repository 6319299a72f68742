import type { Ctx } from "../context.ts";
import { DomainError } from "../errors.ts";
import { conflict, invalidInput } from "../internal/errors.ts";
import { type SignInDeps } from "./sign-in.ts";
import { findOwnerEmail, isEmailAddress, normalizeEmail } from "./internal/owner-email.ts";

/**
 * The refusals of `issueOwnerCode`, without writing or needing the code key: the command line runs
 * them before it reads (or creates) the node secret, so a refused request leaves nothing behind.
 */
export function checkOwnerCodeRequest(ctx: Ctx, input: { email?: string | undefined }, deps: Pick<SignInDeps, "ownerEmail">): { email: string; current: string | null } {
  if (ctx.actor.kind !== "system") throw new DomainError("forbidden", "owner codes are issued from the command line");
  const requested = input.email === undefined ? null : normalizeEmail(input.email);
  if (requested !== null && !isEmailAddress(requested)) throw invalidInput(`--email: ${JSON.stringify(input.email)} is not a valid email address`);
  const current = findOwnerEmail(ctx.db, deps.ownerEmail);
  if (current && requested && requested !== current) {
    throw conflict(`the owner email is already ${current}; refusing to change it (it is the only address that can sign in)`);
  }
  const email = current ?? requested;
  if (!email) throw invalidInput("no owner email is set (kith init --owner-email, KITH_OWNER_EMAIL, or here): pass --email you@example.com (it is stored as the owner's)");
  return { email, current };
}
