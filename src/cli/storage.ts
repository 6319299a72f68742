import { existsSync } from "node:fs";
import { closeDatabase, openDatabase, type Db } from "../db/client.ts";
import { migrate, SchemaTooNewError } from "../db/migrate.ts";
import type { Clock, Logger } from "../domain/context.ts";
import { CliError } from "./command.ts";
import { ensureDataDir, type DataPaths } from "./paths.ts";

/**
 * Opens (creating when needed) the node database and brings it to this build's schema, with a
 * snapshot beside it before any change to an existing database.
 */
export function openStorage(paths: DataPaths, deps: { clock: Clock; log: Logger }): Db {
  ensureDataDir(paths.dir);
  const db = openDatabase(paths.db);
  try {
    const result = migrate(db.$client, { file: paths.db, now: deps.clock.now() });
    if (result.applied > 0) {
      deps.log.info("database migrated", { applied: result.applied, schemaVersion: result.schemaVersion, snapshot: result.snapshot });
    }
  } catch (e) {
    closeDatabase(db);
    if (e instanceof SchemaTooNewError) throw new CliError(e.message);
    throw e;
  }
  return db;
}

/** Opens an existing database without creating or migrating anything (read-side CLI verbs). */
export function openExistingStorage(paths: DataPaths): Db {
  if (!existsSync(paths.db)) throw new CliError(`no Kith database at ${paths.db}; run \`kith init\` or \`kith serve\` first`);
  return openDatabase(paths.db);
}
