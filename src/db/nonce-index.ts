import type { Database, Statement } from "bun:sqlite";
import type { Db } from "./client.ts";

/**
 * The replay-nonce store (INK §8): `inbound_nonces` is append-only (an AUTOINCREMENT id, no
 * (scope, nonce) key), and whether a nonce was seen is answered from memory: a map of every row's
 * (scope, nonce) to its id, per connection. A random-keyed primary key cost 21–33 µs per insert once
 * the table held 40k rows against ~4 µs for an append (docs/decisions/inbound-performance.md, "The
 * replay-nonce store"). The map is keyed by a seeded 53-bit hash of (scope, nonce), 55 bytes an
 * entry where the strings took 180; ids whose rows share a hash are kept together. The table stays
 * the truth; the map only has to hold every row it holds:
 * - loaded whole on the connection's first use (the table holds the retention window, prune-nonces),
 *   or ahead of it in steps (preloadNonceIndex: 55-85 ms at 100k rows were the first signed
 *   request's after a restart);
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
  /** hash of (scope, nonce) → the id of its row, or the ids of the rows sharing that hash. */
  ids: Map<number, number | number[]>;
  /** Highest id read from the table (not counting this connection's own inserts). */
  readThrough: number;
  version: number;
  sql: {
    dataVersion: Statement<{ data_version: number }>;
    rowsAfter: Statement<{ id: number; scope: string; nonce: string }>;
    rowsAfterUpTo: Statement<{ id: number; scope: string; nonce: string }>;
    byId: Statement<{ scope: string; nonce: string }>;
    insert: Statement<{ id: number }>;
    prune: Statement<{ id: number; scope: string; nonce: string }>;
    firstId: Statement<{ id: number | null }>;
  };
}

const indexes = new WeakMap<Database, NonceIndex>();

// Seeded per process, so nobody can choose nonces that share a hash (each would cost a row read).
const SEED = BigInt(Math.floor(Math.random() * 2 ** 52));
let hashMask = 2n ** 53n - 1n;
/** The length prefix keeps scope and nonce apart whatever characters they hold. */
const hashOf = (scope: string, nonce: string) => Number(Bun.hash.wyhash(`${scope.length}:${scope}${nonce}`, SEED) & hashMask);

/** Tests only: hashes of `bits` bits, so that many nonces share one (the collision paths). */
export function narrowNonceHashForTests(bits: number): void {
  hashMask = 2n ** BigInt(bits) - 1n;
}

const idsOf = (entry: number | number[]) => (typeof entry === "number" ? [entry] : entry);

/** Adds `id` under `hash`, moving the entry to the end of the map (kept in id order for the sweep). */
function add(ix: NonceIndex, hash: number, id: number): void {
  const entry = ix.ids.get(hash);
  if (entry === undefined) {
    ix.ids.set(hash, id);
    return;
  }
  ix.ids.delete(hash);
  if (entry === id) ix.ids.set(hash, id);
  else ix.ids.set(hash, idsOf(entry).includes(id) ? entry : [...idsOf(entry), id]);
}

function keep(ix: NonceIndex, hash: number, ids: number[]): void {
  if (ids.length === 0) ix.ids.delete(hash);
  else ix.ids.set(hash, ids.length === 1 ? ids[0]! : ids);
}

/** The connection's index, created empty (not read yet) on first call. */
function ensureIndex(db: Db): NonceIndex {
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
        rowsAfterUpTo: s("SELECT id, scope, nonce FROM inbound_nonces WHERE id > ? ORDER BY id LIMIT ?"),
        byId: s("SELECT scope, nonce FROM inbound_nonces WHERE id = ?"),
        insert: s("INSERT INTO inbound_nonces (scope, nonce, seen_at) VALUES (?, ?, ?) RETURNING id"),
        // Oldest first, through the seen_at index: what is left after a chunk is always the newer part.
        prune: s("DELETE FROM inbound_nonces WHERE id IN (SELECT id FROM inbound_nonces WHERE seen_at < ?1 ORDER BY seen_at LIMIT ?2) RETURNING id, scope, nonce"),
        firstId: s("SELECT min(id) AS id FROM inbound_nonces"),
      },
    };
    indexes.set(client, ix);
  }
  return ix;
}

function indexOf(db: Db): NonceIndex {
  const ix = ensureIndex(db);
  const version = ix.sql.dataVersion.get()!.data_version;
  if (version !== ix.version) {
    // First use, or another connection committed since the last look: read the rows it may have added.
    ix.version = version;
    for (const row of ix.sql.rowsAfter.all(ix.readThrough)) {
      add(ix, hashOf(row.scope, row.nonce), row.id);
      ix.readThrough = row.id;
    }
  }
  return ix;
}

function seen(ix: NonceIndex, hash: number, scope: string, nonce: string): boolean {
  const entry = ix.ids.get(hash);
  if (entry === undefined) return false;
  if (typeof entry === "number") {
    const row = ix.sql.byId.get(entry);
    if (row && row.scope === scope && row.nonce === nonce) return true; // the replay
  }
  // Not this nonce's row: drop ids whose row is gone (rolled back, pruned by another connection)
  // or now holds a nonce of another hash (a rolled-back id reused); keep other nonces' rows.
  let found = false;
  const live: number[] = [];
  for (const id of idsOf(entry)) {
    const row = ix.sql.byId.get(id);
    if (!row) continue;
    if (row.scope === scope && row.nonce === nonce) found = true;
    else if (hashOf(row.scope, row.nonce) !== hash) continue;
    live.push(id);
  }
  keep(ix, hash, live);
  return found;
}

/**
 * Reads up to `limit` more rows into the connection's index ahead of its first use, and says whether
 * there is nothing left to read (the table is read through, or a use already read it). Only rows
 * past those read are read, so steps may be interleaved with anything; the first use still reads
 * whatever the steps have not (its `data_version` check is what makes the index current), so a
 * preload that stops halfway costs nothing but time saved.
 */
export function preloadNonceIndex(db: Db, limit: number): boolean {
  const ix = ensureIndex(db);
  if (!Number.isNaN(ix.version)) return true;
  const rows = ix.sql.rowsAfterUpTo.all(ix.readThrough, limit);
  for (const row of rows) {
    add(ix, hashOf(row.scope, row.nonce), row.id);
    ix.readThrough = row.id;
  }
  return rows.length < limit;
}

/** Whether (scope, nonce) is recorded. */
export function nonceSeen(db: Db, scope: string, nonce: string): boolean {
  return seen(indexOf(db), hashOf(scope, nonce), scope, nonce);
}

/** Records (scope, nonce) seen at `now`: true the first time, false for a replay (nothing written). */
export function insertNonce(db: Db, scope: string, nonce: string, now: number): boolean {
  const ix = indexOf(db);
  const hash = hashOf(scope, nonce);
  if (seen(ix, hash, scope, nonce)) return false;
  add(ix, hash, ix.sql.insert.get(scope, nonce, now)!.id);
  return true;
}

/** Deletes up to `limit` of the rows seen before `cutoff`, oldest first, and forgets them; returns how many were deleted. */
export function pruneNonceRows(db: Db, cutoff: number, limit = Number.MAX_SAFE_INTEGER): number {
  const ix = indexOf(db);
  const removed = ix.sql.prune.all(cutoff, limit);
  for (const row of removed) {
    const hash = hashOf(row.scope, row.nonce);
    const entry = ix.ids.get(hash);
    if (entry !== undefined) keep(ix, hash, idsOf(entry).filter((id) => id !== row.id));
  }
  // Entries below the first remaining id have no row (rolled back, or pruned by another
  // connection): the map is in id order, so they are at its front.
  const first = ix.sql.firstId.get()!.id ?? Number.POSITIVE_INFINITY;
  for (const [hash, entry] of ix.ids) {
    if (Math.max(...idsOf(entry)) >= first) break;
    ix.ids.delete(hash);
  }
  return removed.length;
}

/** How many entries the connection's index holds (tests, memory accounting). */
export function nonceIndexSize(db: Db): number {
  return indexes.get(db.$client)?.ids.size ?? 0;
}
