import { readMigrationFiles } from "drizzle-orm/migrator";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

const folder = () => fileURLToPath(new URL("../../migrations", import.meta.url));

/**
 * Runs at bundle time (imported `with { type: "macro" }`): the drizzle-kit migration folder is read
 * once and inlined as data, so `bun run`, `bun test` and the compiled binary all carry the same
 * migrations and none of them reads a migrations folder at run time.
 */
export function embeddedMigrations(): EmbeddedMigration[] {
  return readMigrationFiles({ migrationsFolder: folder() }).map((m) => ({
    sql: m.sql,
    createdAt: m.folderMillis,
    hash: m.hash,
  }));
}

/**
 * The schema snapshot (migrations/snapshot.sql, made by scripts/schema-snapshot.ts), inlined the
 * same way, with the migrations its header says it covers.
 */
export function embeddedSchemaSnapshot(): SchemaSnapshot {
  const sql = readFileSync(`${folder()}/snapshot.sql`, "utf8");
  const covers = [...sql.matchAll(/^-- migration (\d+) ([0-9a-f]+)$/gm)].map((m) => ({ createdAt: Number(m[1]), hash: m[2]! }));
  return { sql, covers };
}

export interface EmbeddedMigration {
  sql: string[];
  /** drizzle-kit's journal `when` (ms); migrations apply in this order. */
  createdAt: number;
  hash: string;
}

/** A new database's whole schema and seed rows in one text, and the migrations it stands for. */
export interface SchemaSnapshot {
  sql: string;
  covers: Array<{ createdAt: number; hash: string }>;
}
