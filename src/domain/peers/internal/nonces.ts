import type { Db } from "../../../db/client.ts";
import { ingestStatements } from "../../../db/ingest-statements.ts";

/**
 * Whether a nonce was already recorded for this principal: the read a request makes before anything
 * costly (a fetch), so a replay costs nothing. The insert (record-nonce.ts) still decides.
 */
export function isNonceSeen(db: Db, scope: string, nonce: string): boolean {
  return ingestStatements(db).nonceSeen.get(scope, nonce) != null;
}
