import type { Db } from "../../db/client.ts";
import { insertNonce } from "../../db/nonce-index.ts";

/**
 * Records a signed request's replay nonce (INK §8), keyed by (canonical principal, nonce): true
 * the first time, false for a replay. Call it inside the verb's own transaction, after every other
 * check, so a request refused later never burns its nonce; `db` is the connection the transaction
 * runs on (the replay check is answered from the connection's nonce index, db/nonce-index.ts).
 */
export function recordNonce(db: Db, scope: string, nonce: string, now: number): boolean {
  return insertNonce(db, scope, nonce, now);
}
