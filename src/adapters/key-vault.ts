import { existsSync, rmSync } from "node:fs";
import type { AgentKey } from "../security/agent-keys.ts";
import { appendKey, createKeyFile, readKeyFile, readPublicKeys } from "./key-file.ts";

/**
 * The running node's handle on agent-key.json: decrypts once, keeps the keys in memory, and
 * re-reads the file on demand (after `kith keys rotate` ran in another process).
 */
export interface KeyVault {
  readonly path: string;
  exists(): boolean;
  create(keys: AgentKey[]): void;
  append(key: AgentKey): void;
  /** All keys, decrypted. Throws KeyFileError when the file is missing, insecure or undecryptable. */
  all(): AgentKey[];
  find(keyId: string): AgentKey | null;
  reload(): void;
  /** Deletes a key file this vault has just created (rollback of a failed agent creation). */
  discard(): void;
  publicEntries(): ReturnType<typeof readPublicKeys>;
}

export function createKeyVault(path: string, passphrase: string | null): KeyVault {
  let cache: AgentKey[] | null = null;
  const vault: KeyVault = {
    path,
    exists: () => existsSync(path),
    create(keys) {
      createKeyFile(path, keys, passphrase);
      cache = keys;
    },
    append(key) {
      cache = appendKey(path, key, passphrase);
    },
    all() {
      cache ??= readKeyFile(path, passphrase);
      return cache;
    },
    find: (keyId) => vault.all().find((k) => k.keyId === keyId) ?? null,
    reload() {
      cache = readKeyFile(path, passphrase);
    },
    publicEntries: () => readPublicKeys(path),
    discard() {
      rmSync(path, { force: true });
      cache = null;
    },
  };
  return vault;
}
