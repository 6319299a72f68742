import { and, desc, eq, gt, isNull, lte, ne, sql } from "drizzle-orm";
import type { Tx } from "../../../db/client.ts";
import { ownerCodes } from "../../../db/schema/index.ts";
import { CLI_CODE_DIGITS, codeMatches, EMAIL_CODE_DIGITS, generateCode, hashCode } from "../../../security/one-time-code.ts";
import { CODE_MAX_FOREIGN_TRIES, CODE_MAX_TRIES, CODE_TTL_MS } from "../sign-in.ts";

type CodeRow = typeof ownerCodes.$inferSelect;

export interface PreparedCode {
  id: string;
  code: string;
  row: typeof ownerCodes.$inferInsert;
}

/**
 * A fresh code and the row that stores only its HMAC. Pure: nothing is written yet. `requester`
 * is the hashed client key that asked for a mailed code; `kith owner code` has none.
 */
export function prepareCode(input: { id: string; email: string; origin: "email" | "cli"; requester: string | null; now: number; codeKey: Uint8Array }): PreparedCode {
  const code = generateCode(input.origin === "cli" ? CLI_CODE_DIGITS : EMAIL_CODE_DIGITS);
  return {
    id: input.id,
    code,
    row: {
      id: input.id,
      email: input.email,
      codeHash: hashCode(input.codeKey, input.id, input.email, code),
      origin: input.origin,
      requester: input.requester,
      attempts: 0,
      foreignAttempts: 0,
      expiresAt: input.now + CODE_TTL_MS,
      createdAt: input.now,
    },
  };
}

/**
 * Stores a code. It replaces only the live code the same requester asked for before (the same
 * client's mail, or the previous `kith owner code`): a code someone else asked for stays live, so
 * a stranger's request never takes away the owner's. Expired rows are deleted.
 */
export function storeCode(tx: Tx, prepared: PreparedCode, now: number): void {
  const { email, origin, requester } = prepared.row;
  tx.delete(ownerCodes).where(lte(ownerCodes.expiresAt, now)).run();
  const sameRequester = requester == null ? and(eq(ownerCodes.origin, origin), isNull(ownerCodes.requester)) : eq(ownerCodes.requester, requester);
  tx.update(ownerCodes).set({ consumedAt: now }).where(and(eq(ownerCodes.email, email), isNull(ownerCodes.consumedAt), sameRequester)).run();
  tx.insert(ownerCodes).values(prepared.row).run();
}

/**
 * Checks a candidate against the address's live codes that still have tries for this client and
 * records the outcome. A match consumes that code and retires the address's other live codes (the
 * owner is in; codes strangers had mailed are no longer worth guessing). A miss counts one try on
 * each mailed code it was checked against: on the requester's own budget (5) when this client
 * asked for the code, else on the shared foreign budget (3). A `kith owner code` code has no try
 * cap (12 digits and the per-client limits bound guessing), so no stranger can spend it.
 */
export function tryCode(tx: Tx, input: { email: string; candidate: string; client: string; now: number; codeKey: Uint8Array }): boolean {
  const live = tx
    .select()
    .from(ownerCodes)
    .where(and(eq(ownerCodes.email, input.email), isNull(ownerCodes.consumedAt), gt(ownerCodes.expiresAt, input.now)))
    .orderBy(desc(ownerCodes.createdAt), desc(ownerCodes.id))
    .all()
    .filter((row) => hasTriesLeft(row, input.client));
  // Every eligible code is hashed, matching or not, so the time taken does not depend on which matched.
  const matches = live.filter((row) => codeMatches(input.codeKey, row.id, row.email, input.candidate, row.codeHash));
  const match = matches[0];
  if (!match) {
    for (const row of live) {
      if (row.origin === "cli") continue;
      const own = row.requester === input.client;
      tx.update(ownerCodes)
        .set(own ? { attempts: sql`${ownerCodes.attempts} + 1` } : { foreignAttempts: sql`${ownerCodes.foreignAttempts} + 1` })
        .where(eq(ownerCodes.id, row.id))
        .run();
    }
    return false;
  }
  const consumed = tx.update(ownerCodes).set({ consumedAt: input.now }).where(and(eq(ownerCodes.id, match.id), isNull(ownerCodes.consumedAt))).returning({ id: ownerCodes.id }).all();
  if (consumed.length !== 1) return false;
  tx.update(ownerCodes).set({ consumedAt: input.now }).where(and(eq(ownerCodes.email, input.email), isNull(ownerCodes.consumedAt), ne(ownerCodes.id, match.id))).run();
  return true;
}

function hasTriesLeft(row: CodeRow, client: string): boolean {
  if (row.origin === "cli") return true;
  return row.requester === client ? row.attempts < CODE_MAX_TRIES : row.foreignAttempts < CODE_MAX_FOREIGN_TRIES;
}
