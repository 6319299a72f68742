import { cliName } from "../command.ts";
import { existsSync, statfsSync, statSync } from "node:fs";
import { MIGRATIONS, schemaLabel, schemaVersionOf } from "../../db/migrate.ts";
import { fail, formatBytes, ok, skip, warn, type CheckResult, type LocalContext } from "./check.ts";

/** The files of the data directory: who owns them and who else may read them. */
export function checkFiles(ctx: LocalContext): CheckResult[] {
  const { paths } = ctx;
  const out: CheckResult[] = [];
  const dir = statSync(paths.dir);
  const uid = process.getuid?.();
  if (uid !== undefined && dir.uid !== uid) {
    out.push(fail("data-dir", `${paths.dir} belongs to uid ${dir.uid}, doctor runs as uid ${uid}`, `run kith doctor as the user that runs kith serve (sudo -u <user> kith doctor), or chown -R that user ${paths.dir}`));
  } else if ((dir.mode & 0o077) !== 0) {
    out.push(warn("data-dir", `${paths.dir} is open to group or others (mode ${mode(dir.mode)})`, `chmod 700 ${paths.dir}`));
  } else {
    out.push(ok("data-dir", `${paths.dir} is private (mode ${mode(dir.mode)})`));
  }
  if (!existsSync(paths.keyFile)) {
    out.push(fail("key-file", `${paths.keyFile} is missing: the node cannot sign`, `restore the data directory from a backup (${cliName()} restore --from <backup.tar.gz>)`));
  } else {
    const key = statSync(paths.keyFile);
    out.push((key.mode & 0o077) !== 0 ? fail("key-file", `${paths.keyFile} is readable by group or others (mode ${mode(key.mode)}); kith serve refuses it`, `chmod 600 ${paths.keyFile}`) : ok("key-file", `${paths.keyFile} is private (mode ${mode(key.mode)})`));
  }
  // The database, its WAL and the node secret hold the owner's data and tokens' key: same rule as the key file.
  const open = [paths.db, `${paths.db}-wal`, `${paths.db}-shm`, paths.secret].filter((f) => existsSync(f) && (statSync(f).mode & 0o077) !== 0);
  out.push(open.length > 0 ? fail("data-files", `readable by group or others: ${open.join(", ")}`, `chmod 600 ${open.join(" ")}`) : ok("data-files", "kith.db and auth-secret are private"));
  return out;
}

/** Free space where the database grows; a full disk stops every write (SQLITE_FULL). */
export function checkDisk(ctx: LocalContext): CheckResult {
  const fs = statfsSync(ctx.paths.dir);
  const free = Number(fs.bavail) * Number(fs.bsize);
  const total = Number(fs.blocks) * Number(fs.bsize);
  const message = `${formatBytes(free)} free of ${formatBytes(total)} on the disk holding ${ctx.paths.dir}`;
  const fix = `free some space (old kith.db.pre-migration-* snapshots and backups can go elsewhere), or move the data directory to a bigger disk`;
  if (free < ctx.limits.diskFailBytes) return fail("disk", `${message} (below ${formatBytes(ctx.limits.diskFailBytes)})`, fix);
  if (free < ctx.limits.diskWarnBytes) return warn("disk", `${message} (below ${formatBytes(ctx.limits.diskWarnBytes)})`, fix);
  return ok("disk", message);
}

/** SQLite's quick_check (the check kith serve runs at start), read-only: safe beside a running node (WAL). */
export function checkIntegrity(ctx: LocalContext): CheckResult {
  if (!ctx.db) return skip("database", "not opened");
  let verdict: string[];
  try {
    verdict = ctx.db.$client.query<{ quick_check: string }, []>("PRAGMA quick_check(5)").all().map((r) => r.quick_check);
  } catch (e) {
    verdict = [e instanceof Error ? e.message : String(e)]; // SQLITE_CORRUPT, SQLITE_NOTADB: the check cannot even run
  }
  if (verdict.length === 1 && verdict[0] === "ok") return ok("database", `${ctx.paths.db} passes quick_check (${formatBytes(statSync(ctx.paths.db).size)})`);
  return fail("database", `${ctx.paths.db} is damaged: ${verdict.join("; ")}`, `stop the node and restore the latest backup: ${cliName()} restore --from <backup.tar.gz> --data-dir <new dir>`);
}

/** A WAL that keeps growing means checkpoints cannot finish (a reader that never lets go). */
export function checkWal(ctx: LocalContext): CheckResult {
  const wal = `${ctx.paths.db}-wal`;
  const size = existsSync(wal) ? statSync(wal).size : 0;
  if (size > ctx.limits.walWarnBytes) {
    return warn("wal", `${wal} is ${formatBytes(size)} (above ${formatBytes(ctx.limits.walWarnBytes)}): checkpoints are not keeping up`, `look for a process holding kith.db open (a backup tool, sqlite3 shell) and close it; restarting kith serve checkpoints the WAL`);
  }
  return ok("wal", `write-ahead log ${formatBytes(size)}`);
}

/** The database's schema against the one this binary knows (migrations run at kith serve's start). */
export function checkSchema(ctx: LocalContext): CheckResult {
  if (!ctx.db) return skip("schema", "database not opened");
  const db = schemaVersionOf(ctx.db.$client);
  const binary = MIGRATIONS.at(-1)?.createdAt ?? 0;
  if (db === binary) return ok("schema", `schema of ${schemaLabel(db)}, the one this binary knows`);
  if (db > binary) return fail("schema", `the database has the schema of ${schemaLabel(db)}, newer than this binary's (${schemaLabel(binary)})`, `run the newer kith binary that migrated it, or restore a backup taken before the upgrade`);
  return warn("schema", `the database has the schema of ${schemaLabel(db)}; this binary brings ${schemaLabel(binary)}`, `restart kith serve with this binary: it migrates at start (a kith.db.pre-migration-* snapshot is taken first)`);
}

function mode(m: number): string {
  return (m & 0o777).toString(8).padStart(3, "0");
}
