import { sql } from "drizzle-orm";
import type { Db } from "../../../db/client.ts";
import { contactsKey } from "./contact-facts.ts";

/**
 * Changes whenever the contact graph may have changed: contacts and stated relations (counters
 * their triggers bump, migration 0009) and messages (a new one may be evidence: max rowid). O(1),
 * cheap enough for every request; a change only means "recompute and compare": the recompute
 * keeps the snapshot when the graph's content hash is the same.
 */
export function graphChangeKey(db: Db, contacts = contactsKey(db)): string {
  const r = db.all<{ m: number | null; r: number | null }>(sql`SELECT (SELECT MAX(rowid) FROM messages) AS m, (SELECT value FROM network_counters WHERE name = 'relations') AS r`)[0];
  return `${contacts}.${r?.m ?? 0}.${r?.r ?? 0}`;
}
