import type { Db } from "../../db/client.ts";
import { ingestStatements } from "../../db/ingest-statements.ts";
import type { KeyVault } from "../../adapters/key-vault.ts";

/**
 * The private key behind the current active signing key, and since when it is the active one (its
 * row's creation: a rotation or revocation makes the new key then). The key file is re-read when the
 * database names a key the vault has not loaded (a `kith keys rotate` in another process).
 */
export function activeSigningKey(db: Db, vault: KeyVault): { keyId: string; privateKey: Uint8Array; since: number } | null {
  // A prepared statement: every accepted intent signs its audit event with this key (hot path).
  const row = ingestStatements(db).activeSigningKey.get();
  if (!row) return null;
  let key = vault.find(row.keyId);
  if (!key) {
    vault.reload();
    key = vault.find(row.keyId);
  }
  return key ? { keyId: key.keyId, privateKey: key.privateKey, since: row.createdAt } : null;
}
