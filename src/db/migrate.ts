import type { Database } from "bun:sqlite";
import { existsSync, readdirSync, rmSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import type { EmbeddedMigration, SchemaSnapshot } from "./migrations.macro.ts";
import { embeddedMigrations, embeddedSchemaSnapshot } from "./migrations.macro.ts" with { type: "macro" };

/** The migrations compiled into this build, oldest first. */
export const MIGRATIONS: EmbeddedMigration[] = embeddedMigrations();
/** migrations/snapshot.sql: what MIGRATIONS make of an empty database, in one step (docs/decisions/schema-snapshot.md). */
export const SCHEMA_SNAPSHOT: SchemaSnapshot = embeddedSchemaSnapshot();

const TABLE = "__drizzle_migrations"; // drizzle-kit's own table, so its tooling still reads our state
const SNAPSHOTS_KEPT = 3;

export class SchemaTooNewError extends Error {
  constructor(readonly databaseVersion: number, readonly binaryVersion: number) {
    super(
      `This database was migrated by a newer Kith (schema of ${schemaLabel(databaseVersion)}); this binary only ` +
        `knows the schema of ${schemaLabel(binaryVersion)}. Run the newer kith binary, or restore a backup taken ` +
        `before the upgrade (kith restore, or a kith.db.pre-migration-* snapshot in the data directory).`,
    );
    this.name = "SchemaTooNewError";
  }
}

export interface MigrateResult {
  applied: number;
  snapshot: string | null;
  schemaVersion: number;
}

/**
 * Brings the database to this build's schema. Before changing a database that already holds data
 * it writes a consistent snapshot beside the file (`VACUUM INTO`) and keeps the newest few, so a
 * failed upgrade can be undone by hand. A database migrated by a newer build is refused.
 *
 * An empty database gets the schema snapshot instead, when it covers exactly `migrations` (by
 * default this build's own snapshot and migrations): one transaction of ~100 CREATEs instead of
 * 110 statements whose ALTER TABLEs each make SQLite reload the whole schema. The result is the
 * same database (test/db/schema-snapshot.test.ts); a stale snapshot is not used.
 */
export function migrate(
  sqlite: Database,
  options: { file: string | null; now: number; migrations?: EmbeddedMigration[]; snapshot?: SchemaSnapshot | null },
): MigrateResult {
  const migrations = options.migrations ?? MIGRATIONS;
  const initial = options.snapshot === undefined ? (options.migrations ? null : SCHEMA_SNAPSHOT) : options.snapshot;
  if (initial && covers(initial, migrations) && createFromSnapshot(sqlite, initial)) {
    return { applied: migrations.length, snapshot: null, schemaVersion: migrations.at(-1)!.createdAt };
  }
  sqlite.exec(`CREATE TABLE IF NOT EXISTS "${TABLE}" (id INTEGER PRIMARY KEY, hash TEXT NOT NULL, created_at NUMERIC)`);
  const applied = sqlite.query<{ created_at: number }, []>(`SELECT created_at FROM "${TABLE}"`).all();
  const lastApplied = applied.reduce((max, row) => Math.max(max, Number(row.created_at)), 0);
  const known = migrations.at(-1)?.createdAt ?? 0;
  if (lastApplied > known) throw new SchemaTooNewError(lastApplied, known);

  const pending = migrations.filter((m) => m.createdAt > lastApplied);
  if (pending.length === 0) return { applied: 0, snapshot: null, schemaVersion: lastApplied };

  const snapshot = applied.length > 0 && options.file ? takeSnapshot(sqlite, options.file, options.now) : null;
  sqlite.transaction(() => {
    for (const m of pending) {
      for (const statement of m.sql) if (statement.trim()) sqlite.exec(statement);
      sqlite.query(`INSERT INTO "${TABLE}" (hash, created_at) VALUES (?, ?)`).run(m.hash, m.createdAt);
    }
  }).immediate();
  return { applied: pending.length, snapshot, schemaVersion: pending.at(-1)!.createdAt };
}

function covers(snapshot: SchemaSnapshot, migrations: EmbeddedMigration[]): boolean {
  return (
    migrations.length > 0 &&
    snapshot.covers.length === migrations.length &&
    snapshot.covers.every((c, i) => c.createdAt === migrations[i]!.createdAt && c.hash === migrations[i]!.hash)
  );
}

/** Applies the snapshot if the database is empty (checked again under the write lock: another process may be creating it too). */
function createFromSnapshot(sqlite: Database, snapshot: SchemaSnapshot): boolean {
  const empty = () => sqlite.query("SELECT 1 FROM sqlite_master LIMIT 1").get() === null;
  if (!empty()) return false;
  return sqlite.transaction(() => {
    if (!empty()) return false;
    sqlite.exec(snapshot.sql);
    return true;
  }).immediate();
}

/** Schema versions are migration creation times; shown to people as dates. */
export function schemaLabel(version: number): string {
  return version > 0 ? new Date(version).toISOString().replace(/\.\d+Z$/, "Z") : "(empty)";
}

/** The schema version recorded in a database, without changing it (0 for an empty file). */
export function schemaVersionOf(sqlite: Database): number {
  const table = sqlite.query(`SELECT name FROM sqlite_master WHERE type='table' AND name=?`).get(TABLE);
  if (!table) return 0;
  const row = sqlite.query<{ v: number | null }, []>(`SELECT max(created_at) AS v FROM "${TABLE}"`).get();
  return Number(row?.v ?? 0);
}

function takeSnapshot(sqlite: Database, file: string, now: number): string {
  const stamp = new Date(now).toISOString().replace(/[-:]/g, "").replace(/\.\d+Z$/, "Z");
  const target = `${file}.pre-migration-${stamp}`;
  if (existsSync(target)) rmSync(target);
  sqlite.query("VACUUM INTO ?").run(target);
  pruneSnapshots(file);
  return target;
}

function pruneSnapshots(file: string): void {
  const prefix = `${basename(file)}.pre-migration-`;
  const dir = dirname(file);
  const snapshots = readdirSync(dir).filter((n) => n.startsWith(prefix)).sort();
  for (const old of snapshots.slice(0, Math.max(0, snapshots.length - SNAPSHOTS_KEPT))) rmSync(join(dir, old));
}
