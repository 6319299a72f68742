import { eq } from "drizzle-orm";
import type { Db, Tx } from "../../db/client.ts";
import { profileSnapshots } from "../../db/schema/index.ts";
import type { ProfileSnapshot } from "../../ink/index.ts";

/** The stored snapshot of exactly this scope, or null. */
export function findProfileSnapshot(db: Db | Tx, scope: string): ProfileSnapshot | null {
  const row = db.select({ json: profileSnapshots.json }).from(profileSnapshots).where(eq(profileSnapshots.scope, scope)).get();
  return row ? (JSON.parse(row.json) as ProfileSnapshot) : null;
}
