// Writes migrations/snapshot.sql: the schema and seed rows that every migration makes of an empty
// database, which a new node applies in one transaction (docs/decisions/schema-snapshot.md).
// Run it after adding or changing a migration; `--check` exits 1 when the file is out of date
// (test/db/schema-snapshot.test.ts fails then too).
// Usage: bun scripts/schema-snapshot.ts [--check]
import { readFileSync, writeFileSync } from "node:fs";
import { resolve } from "node:path";
import { readMigrationFiles } from "drizzle-orm/migrator";
import { buildSchemaSnapshot } from "../src/db/schema-snapshot.ts";

export const SNAPSHOT_FILE = resolve(import.meta.dir, "../migrations/snapshot.sql");

/** Read from the folder, not the embedded list: the embedded one may have been bundled before an edit. */
export function currentSnapshot(): string {
  const migrations = readMigrationFiles({ migrationsFolder: resolve(import.meta.dir, "../migrations") });
  return buildSchemaSnapshot(migrations.map((m) => ({ sql: m.sql, createdAt: m.folderMillis, hash: m.hash })));
}

if (import.meta.main) {
  const text = currentSnapshot();
  let old = "";
  try {
    old = readFileSync(SNAPSHOT_FILE, "utf8");
  } catch {
    // no file yet
  }
  if (process.argv.includes("--check")) {
    if (old !== text) {
      console.error("migrations/snapshot.sql is out of date: run `bun scripts/schema-snapshot.ts` and commit it");
      process.exit(1);
    }
  } else if (old !== text) {
    writeFileSync(SNAPSHOT_FILE, text);
    console.log(`wrote ${SNAPSHOT_FILE}`);
  } else console.log("migrations/snapshot.sql is up to date");
}
