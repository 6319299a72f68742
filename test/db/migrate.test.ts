import { Database } from "bun:sqlite";
import { describe, expect, test } from "bun:test";
import { mkdtempSync, readdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { migrate, MIGRATIONS, SchemaTooNewError, schemaVersionOf } from "../../src/db/migrate.ts";
import { openDatabase } from "../../src/db/client.ts";

const fresh = () => join(mkdtempSync(join(tmpdir(), "kith-mig-")), "kith.db");
const next = (n: number) => ({ sql: [`CREATE TABLE extra_${n} (id INTEGER PRIMARY KEY)`], createdAt: MIGRATIONS.at(-1)!.createdAt + n, hash: `h${n}` });

describe("migrations", () => {
  test("the build embeds the drizzle-kit migrations", () => {
    expect(MIGRATIONS.length).toBeGreaterThan(0);
    expect(MIGRATIONS[0]!.sql.join("\n")).toContain("CREATE TABLE `agents`");
  });

  test("a new database gets every migration, no snapshot, and a second run is a no-op", () => {
    const file = fresh();
    const db = openDatabase(file);
    const first = migrate(db.$client, { file, now: 0 });
    expect(first).toEqual({ applied: MIGRATIONS.length, snapshot: null, schemaVersion: MIGRATIONS.at(-1)!.createdAt });
    expect(migrate(db.$client, { file, now: 0 }).applied).toBe(0);
    expect(schemaVersionOf(db.$client)).toBe(MIGRATIONS.at(-1)!.createdAt);
    expect(db.$client.query("PRAGMA journal_mode").get()).toEqual({ journal_mode: "wal" });
    expect(db.$client.query("PRAGMA foreign_keys").get()).toEqual({ foreign_keys: 1 });
    expect(db.$client.query("PRAGMA synchronous").get()).toEqual({ synchronous: 2 });
  });

  test("upgrading an existing database snapshots it first and keeps the newest three snapshots", () => {
    const file = fresh();
    const db = openDatabase(file);
    migrate(db.$client, { file, now: 0 });
    db.$client.exec("INSERT INTO settings (key, value, updated_at) VALUES ('marker', 'before-upgrade', 0)");
    const plan = [...MIGRATIONS];
    for (let n = 1; n <= 5; n++) {
      plan.push(next(n));
      const result = migrate(db.$client, { file, now: Date.UTC(2026, 0, n) , migrations: plan });
      expect(result.applied).toBe(1);
      expect(result.snapshot).toContain("kith.db.pre-migration-");
      const snap = new Database(result.snapshot!, { readonly: true });
      expect(snap.query("SELECT value FROM settings WHERE key = 'marker'").get()).toEqual({ value: "before-upgrade" });
      expect(snap.query("SELECT name FROM sqlite_master WHERE name = ?").get(`extra_${n}`)).toBeNull();
      snap.close();
    }
    const snapshots = readdirSync(join(file, "..")).filter((n) => n.includes("pre-migration"));
    expect(snapshots).toHaveLength(3);
  });

  test("a database migrated by a newer build is refused with what to do", () => {
    const file = fresh();
    const db = openDatabase(file);
    migrate(db.$client, { file, now: 0, migrations: [...MIGRATIONS, next(1)] });
    expect(() => migrate(db.$client, { file, now: 0 })).toThrow(SchemaTooNewError);
    expect(() => migrate(db.$client, { file, now: 0 })).toThrow(/newer Kith.*Run the newer kith binary, or restore a backup/);
  });

  test("a failing migration leaves the database as it was", () => {
    const file = fresh();
    const db = openDatabase(file);
    migrate(db.$client, { file, now: 0 });
    const broken = { sql: ["CREATE TABLE good_one (id INTEGER)", "THIS IS NOT SQL"], createdAt: MIGRATIONS.at(-1)!.createdAt + 1, hash: "bad" };
    expect(() => migrate(db.$client, { file, now: 0, migrations: [...MIGRATIONS, broken] })).toThrow();
    expect(db.$client.query("SELECT name FROM sqlite_master WHERE name = 'good_one'").get()).toBeNull();
    expect(schemaVersionOf(db.$client)).toBe(MIGRATIONS.at(-1)!.createdAt);
  });
});
