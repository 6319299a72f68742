import { Database } from "bun:sqlite";
import { chmodSync, existsSync, statSync } from "node:fs";
import { CliError } from "./command.ts";
import type { DataPaths } from "./paths.ts";

export interface ServeLock {
  release(): void;
}

/**
 * One `kith serve` per data directory, held for the life of the process. The lock is SQLite's own
 * exclusive lock (a POSIX record lock) on `kith.lock`: the kernel drops it when the process ends in
 * any way, kill -9 included, so a crash never needs manual cleanup, and a stale file means nothing.
 * Other verbs (owner code, keys, backup) do not take it: they are made to run beside the node.
 */
export function acquireServeLock(paths: DataPaths): ServeLock {
  refuseNonFileLock(paths);
  const db = new Database(paths.lock, { create: true, readwrite: true });
  chmodSync(paths.lock, 0o600);
  try {
    db.exec("PRAGMA busy_timeout = 0");
    db.exec("PRAGMA locking_mode = EXCLUSIVE");
    db.exec("BEGIN EXCLUSIVE");
  } catch (e) {
    db.close();
    if ((e as { code?: unknown }).code === "SQLITE_BUSY") {
      throw new CliError(`another kith serve is already running on ${paths.dir}; stop it first (one node process per data directory)`);
    }
    throw e;
  }
  return {
    release() {
      try {
        db.exec("ROLLBACK");
      } finally {
        db.close();
      }
    },
  };
}

/**
 * Whether a `kith serve` holds the lock now, without taking it for longer than one failed try
 * (kith doctor runs beside the node and must never stop it from starting). No lock file: no node.
 */
export function isServeRunning(paths: DataPaths): boolean {
  if (!existsSync(paths.lock)) return false;
  refuseNonFileLock(paths);
  const db = new Database(paths.lock, { readwrite: true });
  try {
    db.exec("PRAGMA busy_timeout = 0");
    db.exec("BEGIN EXCLUSIVE");
    db.exec("ROLLBACK");
    return false;
  } catch (e) {
    if ((e as { code?: unknown }).code === "SQLITE_BUSY") return true;
    throw e;
  } finally {
    db.close();
  }
}

/** A directory or special file where the lock file goes: SQLite cannot open it, say so plainly. */
function refuseNonFileLock(paths: DataPaths): void {
  if (existsSync(paths.lock) && !statSync(paths.lock).isFile()) {
    throw new CliError(`${paths.lock} is a ${statSync(paths.lock).isDirectory() ? "directory" : "special file"}, not kith serve's lock file: remove it (nothing in it is needed) and start again`);
  }
}
