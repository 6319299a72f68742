import { and, eq } from "drizzle-orm";
import type { Db, Tx } from "../../db/client.ts";
import { inboundNonces } from "../../db/schema/index.ts";

/**
 * The persisted replay store of signed requests (INK §8), keyed by (canonical principal, nonce).
 * `insertNonce` is the atomic record (false = a replay); `isNonceSeen` is the read a request makes
 * before anything costly (a fetch) so a replay costs nothing, the insert still deciding.
 */
export function insertNonce(tx: Db | Tx, scope: string, nonce: string, now: number): boolean {
  return !!tx.insert(inboundNonces).values({ scope, nonce, seenAt: now }).onConflictDoNothing().returning({ n: inboundNonces.nonce }).get();
}

export function isNonceSeen(db: Db | Tx, scope: string, nonce: string): boolean {
  return db.select({ n: inboundNonces.nonce }).from(inboundNonces).where(and(eq(inboundNonces.scope, scope), eq(inboundNonces.nonce, nonce))).get() !== undefined;
}
