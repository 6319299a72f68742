import { eq } from "drizzle-orm";
import type { Db } from "../../../db/client.ts";
import { mailboxGrants } from "../../../db/schema/index.ts";
import { normalizePrincipal } from "../../../ink/index.ts";
import type { GrantRow } from "./mailbox-view.ts";

/**
 * The mailbox of an agent id as named in a path: any spelling of the same key finds it (INK §2.3,
 * per-agent state keys on the canonical principal). Null when none, or revoked unless asked for.
 */
export function findGrant(db: Pick<Db, "select">, agentId: string, options: { includeRevoked?: boolean } = {}): GrantRow | null {
  const principal = normalizePrincipal(agentId);
  if (!principal.ok) return null;
  const row = db.select().from(mailboxGrants).where(eq(mailboxGrants.principal, principal.principal)).get();
  if (!row || (row.revokedAt !== null && !options.includeRevoked)) return null;
  return row;
}
