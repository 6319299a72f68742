import { sql } from "drizzle-orm";
import type { Db } from "../../../db/client.ts";
import { contactsKey } from "./contact-facts.ts";

/**
 * Changes whenever the contact graph may have changed: contacts (count, status, layer), messages
 * (a new one may be evidence) and stated relations. O(1)-ish reads (max rowid, one 10k-row
 * aggregate), cheap enough for every request; a change only means "recompute and compare": the
 * recompute keeps the snapshot when the graph's content hash is the same.
 */
export function graphChangeKey(db: Db, contacts = contactsKey(db)): string {
  const m = db.all<{ m: number | null }>(sql`SELECT MAX(rowid) AS m FROM messages`)[0];
  const r = db.all<{ n: number; m: number | null }>(sql`SELECT COUNT(*) AS n, MAX(rowid) AS m FROM contact_relations`)[0];
  return `${contacts}.${m?.m ?? 0}.${r?.n ?? 0}.${r?.m ?? 0}`;
}
