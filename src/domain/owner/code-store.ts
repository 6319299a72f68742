import { and, desc, eq, isNull, lt } from "drizzle-orm";
import type { Tx } from "../../db/client.ts";
import { ownerCodes } from "../../db/schema/index.ts";
import { codeMatches, generateCode, hashCode } from "../../security/one-time-code.ts";
import { CODE_MAX_TRIES, CODE_TTL_MS, EXPIRED_ROW_GRACE_MS } from "./owner.ts";

export interface PreparedCode {
  id: string;
  code: string;
  row: typeof ownerCodes.$inferInsert;
}

/** A fresh code and the row that stores only its HMAC. Pure: nothing is written yet. */
export function prepareCode(input: { id: string; email: string; origin: "email" | "cli"; now: number; codeKey: Uint8Array }): PreparedCode {
  const code = generateCode();
  return {
    id: input.id,
    code,
    row: { id: input.id, email: input.email, codeHash: hashCode(input.codeKey, input.id, input.email, code), origin: input.origin, attempts: 0, expiresAt: input.now + CODE_TTL_MS, createdAt: input.now },
  };
}

/** Stores a code as the address's only live one: older live codes are retired, long-expired rows deleted. */
export function storeCode(tx: Tx, prepared: PreparedCode, now: number): void {
  tx.delete(ownerCodes).where(lt(ownerCodes.expiresAt, now - EXPIRED_ROW_GRACE_MS)).run();
  tx.update(ownerCodes).set({ consumedAt: now }).where(and(eq(ownerCodes.email, prepared.row.email), isNull(ownerCodes.consumedAt))).run();
  tx.insert(ownerCodes).values(prepared.row).run();
}

/**
 * Checks a candidate against the address's live code and records the outcome: a match consumes
 * the code (single use), a miss counts one of its 5 tries. Expired, used, superseded and
 * exhausted codes never match.
 */
export function tryCode(tx: Tx, input: { email: string; candidate: string; now: number; codeKey: Uint8Array }): boolean {
  const row = tx
    .select()
    .from(ownerCodes)
    .where(and(eq(ownerCodes.email, input.email), isNull(ownerCodes.consumedAt)))
    .orderBy(desc(ownerCodes.createdAt), desc(ownerCodes.id))
    .get();
  if (!row || row.expiresAt <= input.now || row.attempts >= CODE_MAX_TRIES) return false;
  if (!codeMatches(input.codeKey, row.id, row.email, input.candidate, row.codeHash)) {
    tx.update(ownerCodes).set({ attempts: row.attempts + 1 }).where(eq(ownerCodes.id, row.id)).run();
    return false;
  }
  const consumed = tx.update(ownerCodes).set({ consumedAt: input.now }).where(and(eq(ownerCodes.id, row.id), isNull(ownerCodes.consumedAt))).returning({ id: ownerCodes.id }).all();
  return consumed.length === 1;
}
