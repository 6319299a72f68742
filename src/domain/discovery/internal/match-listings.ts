import type { Db } from "../../../db/client.ts";
import type { discoveryResult } from "./listings.ts";

export type ResultRow = Parameters<typeof discoveryResult>[0];

/**
 * bm25 is computed per matching row (1-3 µs each, more with more phrases), so ranking every match
 * of a word that half of 100k profiles contain takes ~40 ms. A group with more matches than this
 * is ranked among its most recently listed RANK_WINDOW matches (rowid order = listing order);
 * smaller groups are ranked exactly. (A separate pass ranking handle/name matches first cost a
 * second read of the same doclists; the column weights favour those matches instead.) Measured
 * in scripts/bench/discover.ts.
 */
export const RANK_WINDOW = 1_000;

const COLUMNS = `l.id, l.agent_id AS agentId, l.handle, l.display_name AS displayName, l.bio, l.skills, l.interests, l.headline,
  l.open_to AS openTo, l.tags, l.roles, l.location, l.card_url AS cardUrl, l.source`;

/**
 * Listed rows matching an FTS5 expression and carrying every facet needle (`\n<kind>:<value>\n`
 * in `facets`), best first by bm25 (the table's configured rank), then oldest listing. `match:
 * null` means no text condition: every listed row with the needles, oldest listing first.
 * Statements are cached by bun:sqlite per SQL text; there is one shape per number of needles.
 */
export function matchListings(db: Db, input: { match: string | null; needles: string[]; limit: number }): ResultRow[] {
  const facetSql = input.needles.map(() => " AND instr(l.facets, ?) > 0").join("");
  if (input.match === null) {
    const sql = `SELECT ${COLUMNS} FROM directory_listings l WHERE l.status = 'listed'${facetSql} ORDER BY l.listed_at, l.id LIMIT ?`;
    return db.$client.query<ResultRow, Array<string | number>>(sql).all(...input.needles, input.limit);
  }
  const ids = rankedIds(db, input.match, input.needles, input.limit, facetSql);
  if (ids.length === 0) return [];
  const rows = db.$client.query<ResultRow & { id: number }, [string]>(`SELECT ${COLUMNS} FROM directory_listings l WHERE l.id IN (SELECT value FROM json_each(?))`).all(JSON.stringify(ids));
  const byId = new Map(rows.map((r) => [r.id, r]));
  return ids.map((id) => byId.get(id)).filter((r): r is ResultRow & { id: number } => r !== undefined);
}

/** Ids of the best `limit` matches of `expression` within its newest RANK_WINDOW matches. */
function rankedIds(db: Db, expression: string, needles: string[], limit: number, facetSql: string): number[] {
  const floor = db.$client.query<{ id: number }, [string, number]>("SELECT rowid AS id FROM directory_fts WHERE directory_fts MATCH ? ORDER BY rowid DESC LIMIT 1 OFFSET ?").get(expression, RANK_WINDOW - 1)?.id ?? 0;
  const sql =
    "SELECT m.id FROM (SELECT rowid AS id, rank AS r FROM directory_fts WHERE directory_fts MATCH ? AND rowid >= ?) m " +
    `JOIN directory_listings l ON l.id = m.id WHERE l.status = 'listed'${facetSql} ORDER BY m.r, l.listed_at, l.id LIMIT ?`;
  return db.$client.query<{ id: number }, Array<string | number>>(sql).all(expression, floor, ...needles, limit).map((r) => r.id);
}
