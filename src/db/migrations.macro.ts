import { readMigrationFiles } from "drizzle-orm/migrator";
import { fileURLToPath } from "node:url";

/**
 * Runs at bundle time (imported `with { type: "macro" }`): the drizzle-kit migration folder is read
 * once and inlined as data, so `bun run`, `bun test` and the compiled binary all carry the same
 * migrations and none of them reads a migrations folder at run time.
 */
export function embeddedMigrations(): EmbeddedMigration[] {
  const folder = fileURLToPath(new URL("../../migrations", import.meta.url));
  return readMigrationFiles({ migrationsFolder: folder }).map((m) => ({
    sql: m.sql,
    createdAt: m.folderMillis,
    hash: m.hash,
  }));
}

export interface EmbeddedMigration {
  sql: string[];
  /** drizzle-kit's journal `when` (ms); migrations apply in this order. */
  createdAt: number;
  hash: string;
}
