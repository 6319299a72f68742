import { Database } from "bun:sqlite";
import { describe, expect, test } from "bun:test";
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { closeDatabase, openDatabase } from "../../src/db/client.ts";
import { migrate, MIGRATIONS, SCHEMA_SNAPSHOT } from "../../src/db/migrate.ts";
import type { SchemaSnapshot } from "../../src/db/migrations.macro.ts";
import { buildSchemaSnapshot, describeDatabase } from "../../src/db/schema-snapshot.ts";
import { currentSnapshot, SNAPSHOT_FILE } from "../../scripts/schema-snapshot.ts";

const fresh = () => join(mkdtempSync(join(tmpdir(), "kith-snap-")), "kith.db");
const covering = (migrations = MIGRATIONS) => migrations.map((m) => ({ createdAt: m.createdAt, hash: m.hash }));
const MARKER = "CREATE TABLE snapshot_marker (x);\n";

/** A new file database the way `kith` opens one, brought to the schema by `how`. */
function created(how: (db: Database, file: string) => void): Record<string, unknown> {
  const file = fresh();
  const db = openDatabase(file);
  how(db.$client, file);
  closeDatabase(db);
  const again = new Database(file, { readonly: true }); // read back from the file, as the next start does
  try {
    return describeDatabase(again);
  } finally {
    again.close();
  }
}

describe("the schema snapshot (docs/decisions/schema-snapshot.md)", () => {
  test("migrations/snapshot.sql is what the migrations make; the build embeds it", () => {
    const stale = "migrations/snapshot.sql is out of date (a migration was added or changed): run `bun scripts/schema-snapshot.ts` and commit the file";
    expect(readFileSync(SNAPSHOT_FILE, "utf8"), stale).toBe(currentSnapshot());
    expect(SCHEMA_SNAPSHOT.sql, stale).toBe(currentSnapshot());
    expect(SCHEMA_SNAPSHOT.covers).toEqual(covering());
  });

  test("a new database from the snapshot equals one migrated statement by statement", () => {
    const migrated = created((db, file) => migrate(db, { file, now: 0, snapshot: null }));
    const snapshot = created((db, file) => {
      expect(migrate(db, { file, now: 0 })).toEqual({ applied: MIGRATIONS.length, snapshot: null, schemaVersion: MIGRATIONS.at(-1)!.createdAt });
    });
    expect(snapshot).toEqual(migrated);
    expect(snapshot.integrity).toEqual([["ok"]]);
    expect(snapshot.userVersion).toEqual({ user_version: 0 });
    expect((snapshot.rows as Record<string, unknown[]>)["__drizzle_migrations"]).toEqual(MIGRATIONS.map((m, i) => [i + 1, i + 1, m.hash, m.createdAt]));
  });

  test("a database made from an older snapshot takes the next migration and equals the full migration", () => {
    const older = MIGRATIONS.slice(0, -1);
    const snapshot: SchemaSnapshot = { sql: buildSchemaSnapshot(older), covers: covering(older) };
    const stepped = created((db, file) => {
      expect(migrate(db, { file, now: 0, migrations: older, snapshot }).applied).toBe(older.length);
      expect(db.query("SELECT count(*) AS n FROM sqlite_master").get()).not.toEqual({ n: 0 });
      expect(migrate(db, { file, now: 0 }).applied).toBe(1);
    });
    expect(stepped).toEqual(created((db, file) => migrate(db, { file, now: 0, snapshot: null })));
  });

  test("the snapshot is used only for an empty database and only when it covers exactly the migrations", () => {
    const marked: SchemaSnapshot = { sql: MARKER + SCHEMA_SNAPSHOT.sql, covers: covering() };
    const hasMarker = (d: Record<string, unknown>) => (d.master as Array<{ name: string }>).some((o) => o.name === "snapshot_marker");

    expect(hasMarker(created((db, file) => migrate(db, { file, now: 0, snapshot: marked })))).toBe(true);
    // stale: the binary's migrations go past what the snapshot covers, or differ in a hash
    const stale: SchemaSnapshot = { ...marked, covers: covering(MIGRATIONS.slice(0, -1)) };
    expect(hasMarker(created((db, file) => migrate(db, { file, now: 0, snapshot: stale })))).toBe(false);
    const edited: SchemaSnapshot = { ...marked, covers: covering().map((c, i) => (i === 3 ? { ...c, hash: "0".repeat(64) } : c)) };
    expect(hasMarker(created((db, file) => migrate(db, { file, now: 0, snapshot: edited })))).toBe(false);
    // not empty: anything already in the file keeps the migrator (which then fails or succeeds on its own)
    const existing = created((db, file) => {
      db.exec("CREATE TABLE somebody_elses (x)");
      migrate(db, { file, now: 0, snapshot: marked });
    });
    expect(hasMarker(existing)).toBe(false);
    expect((existing.master as Array<{ name: string }>).map((o) => o.name)).toContain("agents");
  });

  test("AUTOINCREMENT counters are carried (a table rebuilt by copying rows leaves one even when empty)", () => {
    const rebuild = {
      sql: ["CREATE TABLE `counted` (`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL, `x` text)", "INSERT INTO `counted` (`x`) VALUES ('a'), ('b')", "DELETE FROM `counted`"],
      createdAt: MIGRATIONS.at(-1)!.createdAt + 1,
      hash: "counted",
    };
    const plan = [...MIGRATIONS, rebuild];
    const text = buildSchemaSnapshot(plan); // throws when replaying it differs
    expect(text).toContain(`INSERT INTO "sqlite_sequence" VALUES ('counted',2);`);
    const fromSnapshot = created((db, file) => migrate(db, { file, now: 0, migrations: plan, snapshot: { sql: text, covers: covering(plan) } }));
    expect(fromSnapshot).toEqual(created((db, file) => migrate(db, { file, now: 0, migrations: plan, snapshot: null })));
  });

  test("a failing snapshot leaves the database empty", () => {
    const broken: SchemaSnapshot = { sql: `${SCHEMA_SNAPSHOT.sql}CREATE TABLE agents (x);\n`, covers: covering() };
    const file = fresh();
    const db = openDatabase(file);
    expect(() => migrate(db.$client, { file, now: 0, snapshot: broken })).toThrow(/already exists/);
    expect(db.$client.query("SELECT count(*) AS n FROM sqlite_master").get()).toEqual({ n: 0 });
    closeDatabase(db);
  });
});
