import type { Db } from "../../../db/client.ts";
import { nonceSeen } from "../../../db/nonce-index.ts";
import type { With } from "../../context.ts";

/**
 * Whether a nonce was already recorded for this principal: the read a request makes before anything
 * costly (a fetch), so a replay costs nothing. The insert (record-nonce.ts) still decides.
 */
export function isNonceSeen(db: Db, scope: string, nonce: string): boolean {
  return nonceSeen(db, scope, nonce);
}

/**
 * Whether this request may make the node fetch (a sender's card, a hint, a listing's card): its
 * nonce is not recorded and no copy of it is in flight. The claim is taken in memory before any
 * fetch (adapters/fetch-budget.ts), since the nonce is recorded only when the verb answers: five
 * copies of one request sent at once used to fetch five times (review of issue 21).
 */
export function claimNonceForFetch(ctx: With<"peers">, scope: string, nonce: string): boolean {
  return !isNonceSeen(ctx.db, scope, nonce) && ctx.peers.fetchBudget.claim(`${scope} ${nonce}`, ctx.clock.now());
}
