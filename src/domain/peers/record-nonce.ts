import type { Db } from "../../db/client.ts";
import { ingestStatements } from "../../db/ingest-statements.ts";

/**
 * Records a signed request's replay nonce (INK §8), keyed by (canonical principal, nonce): true
 * the first time, false for a replay. Call it inside the verb's own transaction, after every other
 * check, so a request refused later never burns its nonce; `db` is the connection the transaction
 * runs on (the statement is prepared once for the hot path).
 */
export function recordNonce(db: Db, scope: string, nonce: string, now: number): boolean {
  return !!ingestStatements(db).insertNonce.get(scope, nonce, now);
}
