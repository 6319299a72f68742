import type { Ctx } from "../context.ts";
import { type SignInDeps, type SignInMethod } from "./sign-in.ts";
import { findOwnerEmail } from "./internal/owner-email.ts";

/** `GET /auth/providers`: email once an owner email is known; each OAuth provider when configured. */
export function listSignInProviders(ctx: Ctx, deps: Pick<SignInDeps, "ownerEmail" | "oidc" | "atproto">): SignInMethod[] {
  const out: SignInMethod[] = [];
  if (findOwnerEmail(ctx.db, deps.ownerEmail)) out.push("email");
  if (deps.oidc.google) out.push("google");
  if (deps.oidc.apple) out.push("apple");
  if (deps.atproto) out.push("atproto");
  return out;
}
