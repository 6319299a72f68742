import { transaction } from "../../db/client.ts";
import { settings } from "../../db/schema/index.ts";
import type { Ctx } from "../context.ts";
import { prepareCode, storeCode } from "./internal/code-store.ts";
import { type SignInDeps } from "./sign-in.ts";
import { checkOwnerCodeRequest } from "./check-owner-code-request.ts";

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

