import { accessSync, constants, existsSync, readFileSync, statSync } from "node:fs";
import { dirname } from "node:path";
import { CliError, cliName } from "./command.ts";
import type { DataPaths } from "./paths.ts";

/**
 * Checks that this process can use the data directory before anything touches it, and says in one
 * line what is wrong and what to do: a path that is a file, a directory of another user (like
 * PostgreSQL: files created there by the wrong user would lock the real one out, e.g. a root-owned
 * auth-secret under a systemd node), or one this user cannot write. `create`: a missing directory
 * is fine if its nearest existing parent is writable; `read` (verbs that only read, such as `keys
 * show` and `backup`): a read-only directory or mount is fine.
 */
export function checkDataDir(dir: string, mode: "existing" | "create" | "read"): void {
  const stat = statOrNull(dir);
  if (stat === null) {
    if (mode === "existing") throw new CliError(`no Kith node in ${dir}: run ${cliName()} init or ${cliName()} serve first (or pass the right --data-dir)`);
    const parent = nearestExisting(dirname(dir));
    if (!statSync(parent).isDirectory()) throw new CliError(`cannot create ${dir}: ${parent} is a file, not a directory (choose another --data-dir or KITH_DATA_DIR)`);
    if (cannotUse(parent, "write") === "EROFS") throw new CliError(`cannot create ${dir}: ${parent} is on a read-only file system (choose another --data-dir)`);
    if (cannotUse(parent, "write")) throw new CliError(`cannot create ${dir}: ${parent} is not writable by ${whoAmI()} (create the directory for this user, or choose another --data-dir)`);
    return;
  }
  if (!stat.isDirectory()) throw new CliError(`${dir} is a file, not a directory: choose another --data-dir or KITH_DATA_DIR`);
  const uid = process.getuid?.();
  if (uid !== undefined && stat.uid !== uid) {
    throw new CliError(`${dir} belongs to ${userLabel(stat.uid)}, but kith runs as ${whoAmI()}: run kith as that user (sudo -u ${loginName(stat.uid)} kith …), or chown -R ${loginName(uid)} ${dir}`);
  }
  const problem = cannotUse(dir, mode === "read" ? "read" : "write");
  if (problem === "EROFS") throw new CliError(readOnlyMount(dir));
  if (problem) {
    const what = mode === "read" ? "readable" : "writable";
    throw new CliError(`${dir} is not ${what} by ${whoAmI()} (mode ${(stat.mode & 0o777).toString(8).padStart(3, "0")}): run chmod 700 ${dir}`);
  }
}

/**
 * Why this process cannot write `file` (a read-only mount, a mode or owner that does not let this
 * user write), as one line with what to do; null when it can (or the file does not exist).
 */
export function notWritable(file: string, dir: string): string | null {
  const problem = existsSync(file) ? cannotUse(file, "write") : null;
  if (problem === null) return null;
  if (problem === "EROFS") return readOnlyMount(dir);
  const mode = (statSync(file).mode & 0o777).toString(8).padStart(3, "0");
  return `${file} is not writable by ${whoAmI()} (mode ${mode}): run chmod 600 ${file}`;
}

function readOnlyMount(dir: string): string {
  return `${dir} is on a read-only file system: remount it read-write, or copy the node to a writable --data-dir (${cliName()} keys show and backup work on it as it is)`;
}

/** What a data directory holds: nothing of a node, a node, or the leftovers of an interrupted creation. */
export function nodeState(paths: DataPaths): "none" | "node" | "incomplete" {
  if (existsSync(paths.creating)) return "incomplete";
  return existsSync(paths.db) || existsSync(paths.keyFile) ? "node" : "none";
}

/** For the verbs that need a node: one line when there is none, or only a half-made one. */
export function requireNode(paths: DataPaths, access: "read" | "write" = "write"): void {
  checkDataDir(paths.dir, access === "read" ? "read" : "existing");
  const state = nodeState(paths);
  if (state === "incomplete") throw new CliError(`the node in ${paths.dir} is incomplete: creating it was interrupted; run ${cliName()} init or ${cliName()} serve on it again`);
  if (!existsSync(paths.db)) throw new CliError(`no Kith node in ${paths.dir}: run ${cliName()} init or ${cliName()} serve first (or pass the right --data-dir)`);
  // An empty file is no node either (SQLite would make it a fresh, agentless database).
  if (statSync(paths.db).isFile() && statSync(paths.db).size === 0) {
    throw new CliError(`${paths.db} is empty (0 bytes): there is no node in ${paths.dir}; restore the database from a backup (${cliName()} restore), or move it away and run ${cliName()} init`);
  }
}

/** The errno code that keeps this process from reading (and for `write`, writing) `path`, or null. */
function cannotUse(path: string, need: "read" | "write"): string | null {
  const isDir = statSync(path).isDirectory();
  const flags = constants.R_OK | (need === "write" ? constants.W_OK : 0) | (isDir ? constants.X_OK : 0);
  try {
    accessSync(path, flags);
    return null;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code ?? "EACCES";
  }
}

function statOrNull(path: string) {
  try {
    return statSync(path);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === "ENOENT") return null;
    if (code === "ENOTDIR") throw new CliError(`${path}: a parent of it is a file, not a directory (choose another --data-dir or KITH_DATA_DIR)`);
    if (code === "EACCES") throw new CliError(`${path}: a parent directory is not readable by ${whoAmI()}`);
    throw e;
  }
}

function nearestExisting(path: string): string {
  let p = path;
  while (statOrNull(p) === null && dirname(p) !== p) p = dirname(p);
  return p;
}

function whoAmI(): string {
  const uid = process.getuid?.();
  return uid === undefined ? "this user" : userLabel(uid);
}

/** "alice (uid 1000)", or "uid 1000" when /etc/passwd does not name it. */
function userLabel(uid: number): string {
  const name = passwdName(uid);
  return name ? `${name} (uid ${uid})` : `uid ${uid}`;
}

/** What `sudo -u` takes: the name, or `#uid`. */
function loginName(uid: number): string {
  return passwdName(uid) ?? `'#${uid}'`;
}

function passwdName(uid: number): string | null {
  try {
    const line = readFileSync("/etc/passwd", "utf8").split("\n").find((l) => l.split(":")[2] === String(uid));
    return line?.split(":")[0] || null;
  } catch {
    return null; // no passwd file (containers): the number alone
  }
}
