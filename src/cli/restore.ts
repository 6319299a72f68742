import { chmodSync, closeSync, existsSync, mkdirSync, openSync, readSync, renameSync, rmdirSync, rmSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { closeDatabase, openDatabase } from "../db/client.ts";
import { MIGRATIONS, schemaLabel } from "../db/migrate.ts";
import { STREAM_SETTING } from "../domain/extensions/list-ext-events.ts";
import { readPublicKeys } from "../adapters/key-file.ts";
import { checkSnapshot } from "./backup.ts";
import { CliError, UsageError, type Command } from "./command.ts";
import { configFrom } from "./init.ts";
import { isEmptyDir } from "./paths.ts";
import { extractBackup } from "./restore-archive.ts";

export const restoreCommand: Command = {
  name: "restore",
  summary:
    "Restore a backup made by `kith backup` into a new data directory. Refuses a non-empty target, checks every " +
    "file's SHA-256 and the database's integrity before anything lands in the target.",
  usage: "kith restore --from FILE --data-dir D",
  options: {
    from: { type: "string", description: "Backup file written by kith backup", valueName: "file" },
    "data-dir": { type: "string", description: "Target data directory, required (must be missing or empty)", valueName: "dir" },
  },
  async run(values, io) {
    if (typeof values.from !== "string" || values.from === "") throw new UsageError("--from is required");
    // required, unlike other verbs: no silent ./kith-data (or KITH_DATA_DIR) default for the directory a restore fills
    if (typeof values["data-dir"] !== "string" || values["data-dir"] === "") throw new UsageError("--data-dir is required");
    const from = resolve(io.cwd, values.from);
    const target = configFrom(values, io).dataDir;
    if (!existsSync(from)) throw new CliError(`${from} does not exist`);
    if (!isGzip(from)) throw new CliError(`${from} is not a kith backup (not gzip)`);
    if (!isEmptyDir(target)) throw new CliError(`${target} is not empty; restore only into a new or empty directory`);
    if (!existsSync(dirname(target))) throw new CliError(`directory ${dirname(target)} does not exist`);

    const staging = `${target}.restoring-${process.pid}`;
    rmSync(staging, { recursive: true, force: true });
    mkdirSync(staging, { mode: 0o700 });
    try {
      const manifest = await extractBackup(from, staging);
      const schemaVersion = checkSnapshot(join(staging, "kith.db"));
      const known = MIGRATIONS.at(-1)?.createdAt ?? 0;
      if (schemaVersion > known) throw new CliError(`this backup comes from a newer Kith (schema of ${schemaLabel(schemaVersion)}); restore it with that version`);
      forgetEventStream(join(staging, "kith.db"));
      chmodSync(join(staging, "agent-key.json"), 0o600);
      readPublicKeys(join(staging, "agent-key.json"));
      if (existsSync(target)) rmdirSync(target);
      renameSync(staging, target);
      io.out(`restored backup of ${manifest.createdAt} (kith ${manifest.kithVersion}, schema of ${schemaLabel(manifest.schemaVersion)}) into ${target}`);
      return 0;
    } catch (e) {
      rmSync(staging, { recursive: true, force: true });
      if (e instanceof CliError) throw e;
      throw new CliError(`restore failed: ${e instanceof Error ? e.message : String(e)}`);
    }
  },
};

/** The gzip magic bytes (RFC 1952): tells "not a backup at all" from "a backup cut short". */
function isGzip(file: string): boolean {
  const fd = openSync(file, "r");
  try {
    const head = Buffer.alloc(2);
    return readSync(fd, head, 0, 2, 0) === 2 && head[0] === 0x1f && head[1] === 0x8b;
  } finally {
    closeSync(fd);
  }
}

/**
 * A restored database rewinds the event log: the extension feed's sequence numbers will be
 * handed out again. Dropping the feed's streamId makes the node start a new stream, which tells
 * every extension to resync instead of trusting its cursor (EXTENSIONS §3.2).
 */
function forgetEventStream(file: string): void {
  const db = openDatabase(file);
  try {
    db.$client.prepare("DELETE FROM settings WHERE key = ?").run(STREAM_SETTING);
  } finally {
    closeDatabase(db);
  }
}
