import { existsSync, readdirSync, statSync } from "node:fs";
import { closeDatabase, openDatabase, type Db } from "../db/client.ts";
import { migrate, SchemaTooNewError } from "../db/migrate.ts";
import type { Clock, Logger } from "../domain/context.ts";
import { assertPrivateMode, KeyFileError } from "../adapters/key-file.ts";
import { CliError, cliName } from "./command.ts";
import { notWritable, requireNode } from "./data-dir.ts";
import { ensureDataDir, type DataPaths } from "./paths.ts";

/**
 * Opens (creating when needed) the node database and brings it to this build's schema, with a
 * snapshot beside it before any change to an existing database. `checkIntegrity` (kith serve)
 * runs SQLite's quick_check first (~1.5 ms per MB), so a damaged file is named at start, not by
 * the first request that reads the bad page.
 */
export function openStorage(paths: DataPaths, deps: { clock: Clock; log: Logger }, options: { checkIntegrity?: boolean } = {}): Db {
  ensureDataDir(paths.dir);
  checkDatabaseMode(paths);
  const db = openWritable(paths);
  try {
    if (options.checkIntegrity) quickCheck(db);
    const result = migrate(db.$client, { file: paths.db, now: deps.clock.now() });
    if (result.applied > 0) {
      deps.log.info("database migrated", { applied: result.applied, schemaVersion: result.schemaVersion, snapshot: result.snapshot });
    }
  } catch (e) {
    closeDatabase(db);
    if (e instanceof SchemaTooNewError) throw new CliError(e.message);
    throw storageFailure(e, paths);
  }
  return db;
}

/**
 * Opens an existing database for reading, without creating or migrating anything (read-side CLI
 * verbs): works on a read-only file or mount.
 */
export function openExistingStorage(paths: DataPaths): Db {
  requireNode(paths, "read");
  checkDatabaseMode(paths);
  try {
    const db = openDatabase(paths.db, { readonly: true });
    try {
      db.$client.query("PRAGMA schema_version").get(); // SQLite opens the file (and its -shm) at the first read
    } catch (e) {
      db.$client.close();
      throw e;
    }
    return db;
  } catch (e) {
    // A WAL database read-only needs a -shm it can use; after a clean stop there is none, and on a
    // read-only mount none can be made. No -wal means no process has it open for writing: it is
    // read as immutable (no locks, no -shm).
    if ((e as { code?: unknown }).code === "SQLITE_CANTOPEN" && !existsSync(`${paths.db}-wal`)) return open(paths, { readonly: true, immutable: true });
    throw storageFailure(e, paths);
  }
}

/**
 * Runs a verb's work on the data directory; SQLite and file-system failures become one line
 * naming the file and what to do (a damaged database: how to restore a backup), never a stack.
 */
export async function guardStorage<T>(paths: DataPaths, work: () => T | Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (e) {
    throw storageFailure(e, paths);
  }
}

/** The CliError for a storage failure, or `e` itself when it is something else. */
export function storageFailure(e: unknown, paths: DataPaths): unknown {
  if (e instanceof CliError) return e;
  if (e instanceof KeyFileError) return new CliError(e.message);
  const code = (e as { code?: unknown } | null)?.code;
  const message = (e instanceof Error ? e.message : String(e)).replace(/\s+/g, " ").trim();
  switch (code) {
    case "SQLITE_CORRUPT":
    case "SQLITE_NOTADB":
      return new CliError(`${paths.db} is damaged (${message}). ${restoreAdvice(paths)}`);
    case "SQLITE_READONLY":
    case "SQLITE_CANTOPEN":
    case "SQLITE_PERM":
    case "SQLITE_AUTH":
    case "EACCES":
    case "EPERM":
      return new CliError(`cannot write ${pathOf(e) ?? paths.db} (${message}): check that it and ${paths.dir} belong to the user running kith and are writable`);
    case "EROFS":
      return new CliError(`${paths.dir} is on a read-only file system (${message}): choose a writable --data-dir`);
    case "SQLITE_FULL":
    case "ENOSPC":
    case "EDQUOT":
      return new CliError(`the disk holding ${paths.dir} is full (${message}): free some space and run the command again`);
    case "SQLITE_IOERR":
    case "EIO":
      return new CliError(`I/O error on ${pathOf(e) ?? paths.db} (${message}): check the disk`);
    case "SQLITE_BUSY":
    case "SQLITE_LOCKED":
      return new CliError(`${paths.db} stayed locked by another process for 5 s (${message}); run the command again`);
    default:
      return e;
  }
}

/** How to get a working node back from a damaged database, with the snapshots that exist. */
function restoreAdvice(paths: DataPaths): string {
  const snapshots = existsSync(paths.dir) ? readdirSync(paths.dir).filter((n) => n.startsWith("kith.db.pre-migration-")).sort() : [];
  const snapshot = snapshots.length > 0 ? `, or stop the node and copy the snapshot ${snapshots.at(-1)} over kith.db (it predates the last upgrade)` : "";
  return `Restore your latest backup into a new directory: ${cliName()} restore --from <backup.tar.gz> --data-dir <new dir>, then run ${cliName()} with --data-dir <new dir>${snapshot}`;
}

function open(paths: DataPaths, options: { readonly?: boolean; immutable?: boolean } = {}): Db {
  try {
    return openDatabase(paths.db, options);
  } catch (e) {
    throw storageFailure(e, paths);
  }
}

/**
 * SQLite opens a file it cannot write read-only without a word, and a node on it would answer
 * /health and fail every write with a 500: a write that is rolled back proves it can write, before
 * anything starts; when it cannot, the line names the file that is not writable and what to do.
 */
function openWritable(paths: DataPaths): Db {
  let db: Db | null = null;
  try {
    db = openDatabase(paths.db);
    db.$client.exec("BEGIN IMMEDIATE");
    db.$client.exec("CREATE TABLE kith_write_probe (x)");
    db.$client.exec("ROLLBACK");
    return db;
  } catch (e) {
    if (db) closeDatabase(db);
    const code = (e as { code?: unknown }).code;
    if (typeof code !== "string" || !/^SQLITE_(READONLY|CANTOPEN|PERM)/.test(code)) throw storageFailure(e, paths);
    const why = [paths.db, `${paths.db}-wal`, `${paths.db}-shm`].map((file) => notWritable(file, paths.dir)).find((line) => line !== null);
    throw new CliError(why ?? `${paths.db} can only be opened for reading (${(e as Error).message}): make it and ${paths.dir} writable by the user running kith, or use a writable --data-dir`);
  }
}

function quickCheck(db: Db): void {
  const rows = db.$client.query<{ quick_check: string }, []>("PRAGMA quick_check(1)").all();
  const verdict = rows[0]?.quick_check;
  if (verdict !== "ok") throw Object.assign(new Error(`quick_check: ${verdict ?? "no answer"}`), { code: "SQLITE_CORRUPT" });
}

/**
 * kith.db holds the owner's messages, contacts and sessions: refused, like the key file, when group
 * or others can read it (docs/decisions/data-directory.md). SQLite gives -wal and -shm its mode.
 */
function checkDatabaseMode(paths: DataPaths): void {
  for (const file of [paths.db, `${paths.db}-wal`, `${paths.db}-shm`]) {
    if (!existsSync(file)) continue;
    if (!statSync(file).isFile()) {
      throw new CliError(`${file} is a ${statSync(file).isDirectory() ? "directory" : "special file"}, not part of the node's database: move it away and restore the database (${cliName()} restore), or start a new node in another --data-dir`);
    }
    try {
      assertPrivateMode(file);
    } catch (e) {
      throw storageFailure(e, paths);
    }
  }
}

function pathOf(e: unknown): string | null {
  const path = (e as { path?: unknown } | null)?.path;
  return typeof path === "string" ? path : null;
}
