import { Database } from "bun:sqlite";
import { createHash } from "node:crypto";
import { chmodSync, copyFileSync, createReadStream, createWriteStream, existsSync, mkdtempSync, renameSync, rmSync, statSync } from "node:fs";
import { basename, dirname, join, resolve } from "node:path";
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { createGzip } from "node:zlib";
import { schemaLabel, schemaVersionOf } from "../db/migrate.ts";
import { assertPrivateMode, KeyFileError } from "../adapters/key-file.ts";
import { VERSION } from "../version.ts";
import { CliError, UsageError, type Command, type Io } from "./command.ts";
import { requireNode } from "./data-dir.ts";
import { configFrom } from "./init.ts";
import { dataPaths, type DataPaths } from "./paths.ts";
import { guardStorage, openExistingStorage } from "./storage.ts";
import { tarEntries } from "./tar.ts";

export const BACKUP_FORMAT = "kith-backup/1";

export interface BackupManifest {
  format: typeof BACKUP_FORMAT;
  createdAt: string;
  kithVersion: string;
  schemaVersion: number;
  files: Array<{ name: string; bytes: number; sha256: string }>;
}

export const backupCommand: Command = {
  name: "backup",
  summary:
    "Write a consistent snapshot of the database (SQLite VACUUM INTO, safe while the node runs) and the key file " +
    "into one .tar.gz (mode 0600) with a manifest of SHA-256 hashes. The file holds the private key: keep it safe.",
  usage: "kith backup --out FILE [--data-dir D]",
  options: {
    out: { type: "string", description: "Backup file to create (refuses to overwrite)", valueName: "file" },
    "data-dir": { type: "string", description: "Data directory (default ./kith-data, or KITH_DATA_DIR)", valueName: "dir" },
  },
  async run(values, io) {
    if (typeof values.out !== "string" || values.out === "") throw new UsageError("--out is required");
    const out = resolve(io.cwd, values.out);
    const paths = dataPaths(configFrom(values, io).dataDir);
    requireNode(paths, "read");
    try {
      assertPrivateMode(paths.keyFile);
    } catch (e) {
      if (e instanceof KeyFileError) throw new CliError(e.message);
      throw e;
    }
    if (existsSync(out)) throw new CliError(`${out} already exists; choose another name`);
    if (!existsSync(dirname(out))) throw new CliError(`directory ${dirname(out)} does not exist`);

    return guardStorage(paths, () => write(paths, out, io));
  },
};

/** The snapshot, the key file and the manifest, as one .tar.gz written beside `out` and renamed into place. */
async function write(paths: DataPaths, out: string, io: Io): Promise<number> {
  const work = mkdtempSync(join(dirname(out), ".kith-backup-"));
  chmodSync(work, 0o700);
  const partial = `${out}.partial`;
  try {
    const snapshot = join(work, "kith.db");
    const source = openExistingStorage(paths).$client; // busy timeout 5 s: safe beside a running node
    try {
      source.query("VACUUM INTO ?").run(snapshot);
    } finally {
      source.close();
    }
    const schemaVersion = checkSnapshot(snapshot);
    const keyCopy = join(work, "agent-key.json");
    copyFileSync(paths.keyFile, keyCopy);
    chmodSync(keyCopy, 0o600);
    const files = [
      { name: "kith.db", path: snapshot },
      { name: "agent-key.json", path: keyCopy },
    ];
    const manifest: BackupManifest = {
      format: BACKUP_FORMAT,
      createdAt: new Date().toISOString(),
      kithVersion: VERSION,
      schemaVersion,
      files: await Promise.all(files.map(async (f) => ({ name: f.name, bytes: statSync(f.path).size, sha256: await sha256File(f.path) }))),
    };
    const manifestPath = join(work, "manifest.json");
    await Bun.write(manifestPath, JSON.stringify(manifest, null, 2) + "\n");
    const now = Date.now();
    const entries = [{ name: "manifest.json", path: manifestPath }, ...files].map((f) => ({ ...f, mtimeMs: now }));
    await pipeline(Readable.from(tarEntries(entries)), createGzip(), createWriteStream(partial, { mode: 0o600, flags: "wx" }));
    renameSync(partial, out);
    io.out(`backup written: ${out} (${statSync(out).size} bytes, schema of ${schemaLabel(schemaVersion)})`);
    io.out(`it contains ${basename(paths.keyFile)}: store it where only you can read it`);
    return 0;
  } finally {
    rmSync(work, { recursive: true, force: true });
    rmSync(partial, { force: true });
  }
}

export function checkSnapshot(file: string): number {
  const db = new Database(file, { readonly: true });
  try {
    const result = db.query<{ integrity_check: string }, []>("PRAGMA integrity_check").get();
    if (result?.integrity_check !== "ok") throw new CliError(`database snapshot failed its integrity check: ${result?.integrity_check}`);
    return schemaVersionOf(db);
  } finally {
    db.close();
  }
}

export async function sha256File(path: string): Promise<string> {
  const hash = createHash("sha256");
  for await (const chunk of createReadStream(path)) hash.update(chunk as Uint8Array);
  return hash.digest("hex");
}
