import type { ConnectionLite } from "../../db/ingest-statements.ts";
import { ingestStatements } from "../../db/ingest-statements.ts";
import type { Db } from "../../db/client.ts";

/** Connection statuses that say the node has to do with an agent (it did not only knock: `pending`, `declined`, `blocked` do not count). */
const RELATED = new Set(["connected", "requested", "contact", "disconnected"]);

/**
 * Whether the node has a relationship with `principal`: a connection the owner made or kept, or an
 * agent it wrote to. A stored peer card does not count (a stranger's first-contact hint leaves one
 * for a day). What separates senders from strangers for the inbound budgets (request-limits.md) and
 * for a private card (card-visibility.md).
 */
export function hasRelationship(db: Db, principal: string, connection: Pick<ConnectionLite, "status"> | null): boolean {
  if (connection !== null && RELATED.has(connection.status)) return true;
  return ingestStatements(db).sentTo.get(principal) !== null;
}
