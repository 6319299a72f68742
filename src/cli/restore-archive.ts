import { createHash } from "node:crypto";
import { closeSync, createReadStream, fsyncSync, openSync, statfsSync, statSync, writeSync } from "node:fs";
import { join } from "node:path";
import { pipeline } from "node:stream";
import { createGunzip } from "node:zlib";
import { BACKUP_FORMAT, type BackupManifest } from "./backup.ts";
import { CliError } from "./command.ts";
import { readTarStream, type TarEntry, type TarSink } from "./tar.ts";

const EXPECTED = ["kith.db", "agent-key.json"];
const MAX_MANIFEST_BYTES = 65_536;
const MAX_KEY_FILE_BYTES = 1 << 20;
/**
 * A backup never inflates more than this much, nor past `MIN_ALLOWANCE` (a fresh node's mostly
 * empty pages compress ~30x; a VACUUMed database with data 3-10x). A gzip bomb stops there.
 */
export const MAX_EXPANSION = 100;
const MIN_ALLOWANCE = 64 * 1024 * 1024;
/** Space left free on the target's file system after the restore. */
const FREE_SPACE_RESERVE = 64 * 1024 * 1024;

/**
 * Unpacks a `kith backup` archive into `dir` in one streaming pass (gunzip → tar → files), bounded
 * before any content is inflated: the manifest comes first (≤ 64 KiB) and declares each file's
 * size; every entry must be one of the expected files with exactly that size; the declared total
 * must fit the expansion allowance and the free space of `dir`'s file system. Content is hashed
 * while written and checked against the manifest. Throws CliError naming what is wrong.
 */
export async function extractBackup(archive: string, dir: string): Promise<BackupManifest> {
  const allowance = Math.max(MIN_ALLOWANCE, MAX_EXPANSION * statSync(archive).size);
  let manifest: BackupManifest | null = null;
  let first = true;
  const manifestChunks: Uint8Array[] = [];
  const written = new Set<string>();
  const onEntry = (entry: TarEntry): TarSink => {
    const isFirst = first;
    first = false;
    if (isFirst && entry.name === "manifest.json") {
      if (entry.size > MAX_MANIFEST_BYTES) throw new CliError("not a kith backup: manifest too large");
      return { write: (c) => void manifestChunks.push(c), end: () => (manifest = parseManifest(Buffer.concat(manifestChunks).toString("utf8"), allowance, freeBytes(dir))) };
    }
    if (manifest === null) throw new CliError("not a kith backup: unexpected archive contents");
    const expected = manifest.files.find((f) => f.name === entry.name);
    if (!EXPECTED.includes(entry.name) || !expected || written.has(entry.name)) throw new CliError(`not a kith backup: unexpected file ${entry.name}`);
    if (entry.size !== expected.bytes) throw new CliError(`backup is damaged: ${entry.name} is not the size its manifest gives`);
    written.add(entry.name);
    return fileSink(join(dir, entry.name), expected);
  };
  try {
    const gunzip = createGunzip();
    pipeline(createReadStream(archive), gunzip, () => {}); // errors surface through `gunzip`; an early stop is not one
    await readTarStream(gunzip, onEntry);
  } catch (e) {
    const code = (e as { code?: unknown } | null)?.code;
    if (typeof code === "string" && code.startsWith("Z_")) throw new CliError(`${archive} is damaged or truncated (gzip: ${(e as Error).message})`);
    if (e instanceof CliError) throw e;
    throw new CliError(`backup is damaged: ${e instanceof Error ? e.message : String(e)}`);
  }
  if (manifest === null || EXPECTED.some((name) => !written.has(name))) throw new CliError("not a kith backup: unexpected archive contents");
  return manifest;
}

function fileSink(path: string, expected: { name: string; sha256: string }): TarSink {
  const hash = createHash("sha256");
  const fd = openSync(path, "wx", 0o600);
  return {
    write(chunk) {
      hash.update(chunk);
      writeSync(fd, chunk);
    },
    end() {
      fsyncSync(fd);
      closeSync(fd);
      if (hash.digest("hex") !== expected.sha256) throw new CliError(`backup is damaged: ${expected.name} does not match its manifest hash`);
    },
  };
}

function parseManifest(text: string, allowance: number, free: number): BackupManifest {
  let m: Partial<BackupManifest>;
  try {
    m = JSON.parse(text) as Partial<BackupManifest>;
  } catch {
    throw new CliError("not a kith backup: unreadable manifest");
  }
  if (m === null || typeof m !== "object" || m.format !== BACKUP_FORMAT || !Array.isArray(m.files) || typeof m.createdAt !== "string") throw new CliError(`not a ${BACKUP_FORMAT} backup`);
  let total = 0;
  for (const name of EXPECTED) {
    const f = m.files.find((x) => x && typeof x === "object" && x.name === name);
    if (!f || typeof f.sha256 !== "string" || !Number.isSafeInteger(f.bytes) || f.bytes < 0) throw new CliError(`backup manifest lacks ${name}`);
    if (name === "agent-key.json" && f.bytes > MAX_KEY_FILE_BYTES) throw new CliError("not a kith backup: the key file it declares is too large");
    total += f.bytes;
  }
  if (total > allowance) throw new CliError(`refusing the backup: it declares ${mib(total)} of content, more than ${MAX_EXPANSION}x its compressed size (a damaged or hostile archive)`);
  if (total > free - FREE_SPACE_RESERVE) throw new CliError(`not enough disk space: the backup needs ${mib(total)}, the target has ${mib(Math.max(0, free))} free`);
  return m as BackupManifest;
}

function freeBytes(dir: string): number {
  const s = statfsSync(dir);
  return Number(s.bavail) * Number(s.bsize);
}

function mib(bytes: number): string {
  return `${(bytes / (1024 * 1024)).toFixed(1)} MiB`;
}
