import { transaction } from "../../db/client.ts";
import { settings } from "../../db/schema/index.ts";
import type { Ctx } from "../context.ts";
import { conflict, DomainError, invalidInput } from "../errors.ts";
import { prepareCode, storeCode } from "./internal/code-store.ts";
import { findOwnerEmail, isEmailAddress, normalizeEmail, type SignInDeps } from "./sign-in.ts";

/**
 * `kith owner code`: a fresh one-time code for the owner's email, for a self-hoster without mail
 * (or a script), used with `POST /auth/email/verify`. When no owner email is set yet, `email`
 * sets it; an existing one is never changed silently.
 */
export function issueOwnerCode(ctx: Ctx, input: { email?: string | undefined }, deps: Pick<SignInDeps, "codeKey" | "ownerEmail">): { email: string; code: string; expiresAt: number; stored: boolean } {
  const { email, current } = checkOwnerCodeRequest(ctx, input, deps);
  const now = ctx.clock.now();
  const prepared = prepareCode({ id: ctx.ids.next(), email, origin: "cli", requester: null, now, codeKey: deps.codeKey });
  transaction(ctx.db, (tx) => {
    if (!current) tx.insert(settings).values({ key: "owner_email", value: email, updatedAt: now }).run();
    storeCode(tx, prepared, now);
  });
  ctx.log.info("sign-in code issued", { codeId: prepared.id, delivery: "cli" });
  return { email, code: prepared.code, expiresAt: prepared.row.expiresAt, stored: !current };
}

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
