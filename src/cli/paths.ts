import { chmodSync, existsSync, mkdirSync, readdirSync } from "node:fs";
import { join } from "node:path";

export interface DataPaths {
  dir: string;
  db: string;
  keyFile: string;
  /** The node secret (owner tokens, code HMAC); see adapters/node-secret.ts. */
  secret: string;
  /** Held by `kith serve` for its whole life (serve-lock.ts). */
  lock: string;
  /** Present while a node is being built in an existing directory (create-data-dir.ts). */
  creating: string;
}

export function dataPaths(dir: string): DataPaths {
  return {
    dir,
    db: join(dir, "kith.db"),
    keyFile: join(dir, "agent-key.json"),
    secret: join(dir, "auth-secret"),
    lock: join(dir, "kith.lock"),
    creating: join(dir, ".kith-creating"),
  };
}

/** Creates the data directory private to its owner (0700). */
export function ensureDataDir(dir: string): void {
  if (!existsSync(dir)) mkdirSync(dir, { recursive: true, mode: 0o700 });
  chmodSync(dir, 0o700);
}

/** Missing, or an empty directory: what zero-config start and restore accept. */
export function isEmptyDir(dir: string): boolean {
  return !existsSync(dir) || readdirSync(dir).length === 0;
}
