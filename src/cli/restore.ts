import { createHash } from "node:crypto";
import { chmodSync, closeSync, createReadStream, createWriteStream, existsSync, fsyncSync, mkdirSync, openSync, readSync, renameSync, rmdirSync, rmSync, writeSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { pipeline } from "node:stream/promises";
import { createGunzip } from "node:zlib";
import { MIGRATIONS, schemaLabel } from "../db/migrate.ts";
import { readPublicKeys } from "../security/key-file.ts";
import { BACKUP_FORMAT, checkSnapshot, type BackupManifest } from "./backup.ts";
import { CliError, UsageError, type Command } from "./command.ts";
import { configFrom } from "./init.ts";
import { isEmptyDir } from "./paths.ts";
import { listTar, readTarEntry } from "./tar.ts";

const EXPECTED = ["kith.db", "agent-key.json"];

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
      const tarPath = join(staging, "backup.tar");
      try {
        await pipeline(createReadStream(from), createGunzip(), createWriteStream(tarPath, { mode: 0o600 }));
      } catch (e) {
        const code = (e as { code?: unknown } | null)?.code;
        if (typeof code === "string" && code.startsWith("Z_")) throw new CliError(`${from} is damaged or truncated (gzip: ${(e as Error).message})`);
        throw e;
      }
      const manifest = extract(tarPath, staging);
      rmSync(tarPath);
      const schemaVersion = checkSnapshot(join(staging, "kith.db"));
      const known = MIGRATIONS.at(-1)?.createdAt ?? 0;
      if (schemaVersion > known) throw new CliError(`this backup comes from a newer Kith (schema of ${schemaLabel(schemaVersion)}); restore it with that version`);
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

function extract(tarPath: string, dir: string): BackupManifest {
  const entries = listTar(tarPath);
  const names = entries.map((e) => e.name);
  if (names[0] !== "manifest.json" || new Set(names).size !== names.length || names.length !== EXPECTED.length + 1) {
    throw new CliError("not a kith backup: unexpected archive contents");
  }
  const manifestEntry = entries[0]!;
  if (manifestEntry.size > 65_536) throw new CliError("not a kith backup: manifest too large");
  const chunks: Uint8Array[] = [];
  readTarEntry(tarPath, manifestEntry, (c) => chunks.push(c.slice()));
  const manifest = parseManifest(Buffer.concat(chunks).toString("utf8"));
  for (const entry of entries.slice(1)) {
    const expected = manifest.files.find((f) => f.name === entry.name);
    if (!expected || !EXPECTED.includes(entry.name)) throw new CliError(`not a kith backup: unexpected file ${entry.name}`);
    const hash = createHash("sha256");
    const fd = openSync(join(dir, entry.name), "wx", 0o600);
    try {
      readTarEntry(tarPath, entry, (c) => {
        hash.update(c);
        writeSync(fd, c);
      });
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    if (entry.size !== expected.bytes || hash.digest("hex") !== expected.sha256) throw new CliError(`backup is damaged: ${entry.name} does not match its manifest hash`);
  }
  return manifest;
}

function parseManifest(text: string): BackupManifest {
  let m: Partial<BackupManifest>;
  try {
    m = JSON.parse(text) as Partial<BackupManifest>;
  } catch {
    throw new CliError("not a kith backup: unreadable manifest");
  }
  if (m.format !== BACKUP_FORMAT || !Array.isArray(m.files) || typeof m.createdAt !== "string") throw new CliError(`not a ${BACKUP_FORMAT} backup`);
  for (const name of EXPECTED) if (!m.files.some((f) => f && f.name === name && typeof f.sha256 === "string")) throw new CliError(`backup manifest lacks ${name}`);
  return m as BackupManifest;
}
