import { constants, Database } from "bun:sqlite";
import { chmodSync, existsSync } from "node:fs";
import { drizzle, type BunSQLiteDatabase } from "drizzle-orm/bun-sqlite";
import type * as schema from "./schema/index.ts";

export type Schema = typeof schema;
/** No schema generic: nothing uses drizzle's relational queries (db.query.*), so none are built (see openDatabase). */
export type Db = BunSQLiteDatabase & { $client: Database };
export type Tx = Parameters<Parameters<Db["transaction"]>[0]>[0];

/**
 * Opens the node's SQLite file with the pragmas every connection needs: WAL so readers never
 * block the writer, synchronous=FULL so an acknowledged write survives power loss (DESIGN:
 * "nothing acknowledged is lost"), foreign keys on, temporary storage in memory, and a busy
 * timeout so the CLI and a running node can share the file.
 */
export function openDatabase(file: string, options: { readonly?: boolean; immutable?: boolean } = {}): Db {
  const created = file !== ":memory:" && !existsSync(file);
  const sqlite = options.immutable
    ? // SQLite's immutable=1: no locks, no -shm; only for a file nothing can be writing (a read-only mount).
      new Database(`file:${file.split("/").map(encodeURIComponent).join("/")}?immutable=1`, constants.SQLITE_OPEN_READONLY | constants.SQLITE_OPEN_URI)
    : new Database(file, options.readonly ? { readonly: true } : { create: true, readwrite: true });
  // SQLite gives -wal and -shm the database file's mode, so this keeps all three private.
  if (created) chmodSync(file, 0o600);
  sqlite.exec("PRAGMA busy_timeout = 5000");
  if (!options.readonly && !options.immutable) {
    sqlite.exec("PRAGMA journal_mode = WAL");
    sqlite.exec("PRAGMA synchronous = FULL");
  }
  sqlite.exec("PRAGMA foreign_keys = ON");
  // Temporary files (savepoint sub-journals above 64 KiB, sorts, temp indexes) stay in memory:
  // otherwise each savepoint of a group commit opens, writes and deletes a file in /var/tmp.
  sqlite.exec("PRAGMA temp_store = MEMORY");
  // Without `schema`: drizzle would build its relational query config from every table at each
  // open (1-3 ms of every start and CLI verb) for db.query.*, which nothing here uses.
  return drizzle({ client: sqlite }) as Db;
}

/** A value that is not a promise: an async callback would commit at its first await (DESIGN "Storage and transactions"). */
export type NotPromise<T> = T extends PromiseLike<unknown> ? never : T;

/**
 * Runs `fn` in one IMMEDIATE transaction. bun:sqlite transactions are synchronous: an async
 * callback would commit at its first `await`, so an async `fn` is a type error here. Do the async
 * work (verify, fetch, hash) first, then write.
 */
export function transaction<T>(db: Db, fn: (tx: Tx) => NotPromise<T>): T {
  return db.transaction((tx) => fn(tx), { behavior: "immediate" }) as T;
}

/**
 * A transaction for bookkeeping that is safe to redo, committed with `synchronous=NORMAL`: its
 * COMMIT does not fsync on the event loop. In WAL mode the commit is still atomic and in order and
 * survives a crash of the process; only a power loss before the next fsync of the WAL (any later
 * FULL or group commit makes it durable) can undo it, and then the work is redone. Used for the
 * background jobs' cursors moving past events they had nothing to do for: under inbound load those
 * commits ran after every group commit, each an fsync that stalled every request (issue 18).
 */
export function relaxedTransaction<T>(db: Db, fn: (tx: Tx) => NotPromise<T>): T {
  // query(): bun:sqlite compiles each text once per connection and reuses it
  db.$client.query("PRAGMA synchronous = NORMAL").run();
  try {
    return transaction(db, fn);
  } finally {
    db.$client.query("PRAGMA synchronous = FULL").run();
  }
}

export function closeDatabase(db: Db): void {
  try {
    db.$client.exec("PRAGMA optimize");
  } catch {
    // best effort: optimize must never block a shutdown
  }
  db.$client.close();
}
