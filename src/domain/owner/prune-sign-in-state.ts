import { and, eq, lte, sql } from "drizzle-orm";
import { transaction } from "../../db/client.ts";
import { oauthStates, ownerCodes, rateLimits } from "../../db/schema/index.ts";
import type { Ctx } from "../context.ts";
import { SEND_PER_ADDRESS, SEND_PER_ADDRESS_AND_CLIENT } from "./send-email-code.ts";
import { VERIFY_PER_CLIENT } from "./verify-email-code.ts";

/** The durable limiter buckets of sign-in and their windows: a row is dead once its window ended. */
const SIGN_IN_BUCKETS: ReadonlyArray<[bucket: string, windowMs: number]> = [
  ["email-send", SEND_PER_ADDRESS.windowMs],
  ["email-send-client", SEND_PER_ADDRESS_AND_CLIENT.windowMs],
  ["email-verify-client", VERIFY_PER_CLIENT.windowMs],
];

/**
 * Maintenance: deletes the sign-in state strangers can make the node write, once it can no longer
 * be used: OAuth states and email codes past their expiry, and sign-in rate-limit rows whose window
 * has ended (issue 21: a stranger calling authorize or send in a loop must not grow the database).
 */
export function pruneSignInState(ctx: Pick<Ctx, "db" | "clock">): { states: number; codes: number; limits: number } {
  const now = ctx.clock.now();
  return transaction(ctx.db, (tx) => {
    const states = tx.delete(oauthStates).where(lte(oauthStates.expiresAt, now)).returning({ h: oauthStates.stateHash }).all().length;
    const codes = tx.delete(ownerCodes).where(lte(ownerCodes.expiresAt, now)).returning({ id: ownerCodes.id }).all().length;
    let limits = 0;
    for (const [bucket, windowMs] of SIGN_IN_BUCKETS) {
      limits += tx
        .delete(rateLimits)
        .where(and(eq(rateLimits.bucket, bucket), lte(sql`${rateLimits.windowStart} + ${windowMs}`, now)))
        .returning({ k: rateLimits.key })
        .all().length;
    }
    return { states, codes, limits };
  });
}
