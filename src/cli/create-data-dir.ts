import { randomBytes } from "node:crypto";
import { closeSync, constants, existsSync, fsyncSync, mkdirSync, openSync, readdirSync, readFileSync, renameSync, rmSync, writeSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { CliError } from "./command.ts";
import { dataPaths, type DataPaths } from "./paths.ts";

/** Every name a node creates in its data directory: what an interrupted creation may have left. */
const NODE_FILES = ["kith.db", "kith.db-wal", "kith.db-shm", "kith.db-journal", "agent-key.json", "auth-secret", "kith.lock"];

/**
 * Creates a node all or nothing: Ctrl-C or kill -9 during `kith init` or a first `kith serve`
 * never leaves a half-made node. A missing directory is built beside it, in
 * `.<name>.creating-<pid>-<random>`, and renamed into place in one step. An existing (empty)
 * directory is built in place, under a `.kith-creating` marker removed last: the admin made that
 * directory (a mount point, a systemd StateDirectory), so it is not replaced. A directory still
 * holding the marker is an interrupted creation; the next creation first removes what it left
 * (only the names a node creates). `build` gets the paths to build at and closes what it opens.
 */
export function createDataDir<T>(paths: DataPaths, build: (at: DataPaths) => T): T {
  return existsSync(paths.dir) ? createInPlace(paths, build) : createBeside(paths, build);
}

/** Removes what a creation in place wrote (or all of a directory it created): rollback of a failed first start. */
export function discardDataDir(paths: DataPaths, dirExisted: boolean): void {
  if (!dirExisted) {
    rmSync(paths.dir, { recursive: true, force: true });
    return;
  }
  for (const name of readdirSync(paths.dir)) {
    if (NODE_FILES.includes(name) || name.startsWith("agent-key.json.tmp-")) rmSync(join(paths.dir, name), { force: true });
  }
  rmSync(paths.creating, { force: true });
}

function createBeside<T>(paths: DataPaths, build: (at: DataPaths) => T): T {
  const parent = dirname(paths.dir);
  const base = basename(paths.dir);
  mkdirSync(parent, { recursive: true, mode: 0o700 });
  removeAbandoned(parent, base);
  const staging = join(parent, `.${base}.creating-${process.pid}-${randomBytes(4).toString("hex")}`);
  mkdirSync(staging, { mode: 0o700 });
  try {
    const result = build(dataPaths(staging));
    fsyncDir(staging);
    try {
      renameSync(staging, paths.dir);
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      if (code === "ENOTEMPTY" || code === "EEXIST") throw new CliError(`${paths.dir} was created by another process meanwhile; run the command again`);
      throw e;
    }
    fsyncDir(parent);
    return result;
  } catch (e) {
    rmSync(staging, { recursive: true, force: true });
    throw e;
  }
}

function createInPlace<T>(paths: DataPaths, build: (at: DataPaths) => T): T {
  if (existsSync(paths.creating)) {
    const pid = Number(readFileSync(paths.creating, "utf8").trim());
    if (Number.isSafeInteger(pid) && pid > 0 && pid !== process.pid && isAlive(pid)) {
      throw new CliError(`another kith process (pid ${pid}) is creating a node in ${paths.dir}; wait for it to finish`);
    }
    discardDataDir(paths, true); // an earlier creation was interrupted: its process is gone
  }
  let fd: number;
  try {
    fd = openSync(paths.creating, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL, 0o600);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "EEXIST") throw new CliError(`another kith process is creating a node in ${paths.dir}; run the command again`);
    throw e;
  }
  try {
    writeSync(fd, `${process.pid}\n`);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  fsyncDir(paths.dir);
  try {
    const result = build(paths);
    rmSync(paths.creating);
    fsyncDir(paths.dir);
    return result;
  } catch (e) {
    discardDataDir(paths, true);
    throw e;
  }
}

/** Staging directories of creations whose process is gone (killed mid-way) hold an unused key: removed. */
function removeAbandoned(parent: string, base: string): void {
  const prefix = `.${base}.creating-`;
  for (const name of readdirSync(parent)) {
    const pid = name.startsWith(prefix) ? Number(name.slice(prefix.length).split("-")[0]) : NaN;
    if (Number.isSafeInteger(pid) && pid > 0 && !isAlive(pid)) rmSync(join(parent, name), { recursive: true, force: true });
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === "EPERM"; // alive, someone else's
  }
}

function fsyncDir(dir: string): void {
  const fd = openSync(dir, constants.O_RDONLY);
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}
