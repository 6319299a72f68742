import type { Database, Statement } from "bun:sqlite";
import type { Db } from "./client.ts";

/**
 * The replay-nonce store (INK §8): `inbound_nonces` is append-only (an AUTOINCREMENT id, no
 * (scope, nonce) key), and whether a nonce was seen is answered from memory: a map of every row's
 * (scope, nonce) to its id, per connection. A random-keyed primary key cost 21–33 µs per insert once
 * the table held 40k rows against ~4 µs for an append (docs/decisions/inbound-performance.md, "The
 * replay-nonce store"). The table stays the truth; the map only has to hold every row it holds:
 * - loaded whole on the connection's first use (the table holds the retention window, prune-nonces);
 * - this connection's inserts are added as they are made; one whose savepoint or transaction rolls
 *   back stays in the map, so a hit is confirmed by reading its row by id (a replay is rare): a row
 *   that is gone or holds another nonce (ids of rolled-back rows are reused) is not a replay;
 * - another connection's commits move `PRAGMA data_version`, and then the rows past the highest id
 *   read so far are read (AUTOINCREMENT: a committed row's id is never reused, even after a prune);
 * - pruned rows leave the map with the DELETE's own RETURNING rows.
 * Recording must run inside an IMMEDIATE transaction (the verbs' own), so no other connection can
 * commit between the check and the insert.
 */
interface NonceIndex {
  ids: Map<string, number>;
  /** Highest id read from the table (not counting this connection's own inserts). */
  readThrough: number;
  version: number;
  sql: {
    dataVersion: Statement<{ data_version: number }>;
    rowsAfter: Statement<{ id: number; scope: string; nonce: string }>;
    byId: Statement<{ scope: string; nonce: string }>;
    insert: Statement<{ id: number }>;
    prune: Statement<{ id: number; scope: string; nonce: string }>;
    firstId: Statement<{ id: number | null }>;
  };
}

const indexes = new WeakMap<Database, NonceIndex>();

/** Unambiguous whatever characters scope and nonce hold. */
const keyOf = (scope: string, nonce: string) => `${scope.length}:${scope}${nonce}`;

function indexOf(db: Db): NonceIndex {
  const client = db.$client;
  let ix = indexes.get(client);
  if (!ix) {
    const s = <R>(text: string) => client.prepare(text) as unknown as Statement<R>;
    ix = {
      ids: new Map(),
      readThrough: 0,
      version: Number.NaN,
      sql: {
        dataVersion: s("PRAGMA data_version"),
        rowsAfter: s("SELECT id, scope, nonce FROM inbound_nonces WHERE id > ? ORDER BY id"),
        byId: s("SELECT scope, nonce FROM inbound_nonces WHERE id = ?"),
        insert: s("INSERT INTO inbound_nonces (scope, nonce, seen_at) VALUES (?, ?, ?) RETURNING id"),
        prune: s("DELETE FROM inbound_nonces WHERE seen_at < ? RETURNING id, scope, nonce"),
        firstId: s("SELECT min(id) AS id FROM inbound_nonces"),
      },
    };
    indexes.set(client, ix);
  }
  const version = ix.sql.dataVersion.get()!.data_version;
  if (version !== ix.version) {
    // First use, or another connection committed since the last look: read the rows it may have added.
    ix.version = version;
    for (const row of ix.sql.rowsAfter.all(ix.readThrough)) {
      const key = keyOf(row.scope, row.nonce);
      ix.ids.delete(key);
      ix.ids.set(key, row.id);
      ix.readThrough = row.id;
    }
  }
  return ix;
}

function seen(ix: NonceIndex, scope: string, nonce: string): boolean {
  const key = keyOf(scope, nonce);
  const id = ix.ids.get(key);
  if (id === undefined) return false;
  const row = ix.sql.byId.get(id);
  if (row && row.scope === scope && row.nonce === nonce) return true;
  ix.ids.delete(key); // its insert was rolled back, or another connection pruned it
  return false;
}

/** Whether (scope, nonce) is recorded. */
export function nonceSeen(db: Db, scope: string, nonce: string): boolean {
  return seen(indexOf(db), scope, nonce);
}

/** Records (scope, nonce) seen at `now`: true the first time, false for a replay (nothing written). */
export function insertNonce(db: Db, scope: string, nonce: string, now: number): boolean {
  const ix = indexOf(db);
  if (seen(ix, scope, nonce)) return false;
  const id = ix.sql.insert.get(scope, nonce, now)!.id;
  const key = keyOf(scope, nonce);
  ix.ids.delete(key); // a stale entry (rolled back) moves to the end, in id order for the sweep below
  ix.ids.set(key, id);
  return true;
}

/** Deletes the rows seen before `cutoff` and forgets them; returns how many were deleted. */
export function pruneNonceRows(db: Db, cutoff: number): number {
  const ix = indexOf(db);
  const removed = ix.sql.prune.all(cutoff);
  for (const row of removed) {
    const key = keyOf(row.scope, row.nonce);
    if (ix.ids.get(key) === row.id) ix.ids.delete(key);
  }
  // Entries below the first remaining id have no row (rolled back, or pruned by another
  // connection): the map is in id order, so they are at its front.
  const first = ix.sql.firstId.get()!.id ?? Number.POSITIVE_INFINITY;
  for (const [key, id] of ix.ids) {
    if (id >= first) break;
    ix.ids.delete(key);
  }
  return removed.length;
}

/** How many entries the connection's index holds (tests, memory accounting). */
export function nonceIndexSize(db: Db): number {
  return indexes.get(db.$client)?.ids.size ?? 0;
}
