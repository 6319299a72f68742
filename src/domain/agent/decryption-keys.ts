import { desc, eq } from "drizzle-orm";
import type { Db } from "../../db/client.ts";
import { agentKeys } from "../../db/schema/index.ts";
import type { KeyVault } from "../../adapters/key-vault.ts";

/** X25519 private keys for opening sealed envelopes: the active one first, then retired ones (ENCRYPTION §5 [E2]). */
export function decryptionKeys(db: Db, vault: KeyVault): Uint8Array[] {
  const rows = db.select().from(agentKeys).where(eq(agentKeys.role, "encryption")).orderBy(desc(agentKeys.createdAt)).all();
  const ordered = [...rows.filter((r) => r.status === "active"), ...rows.filter((r) => r.status === "retired")];
  const keys: Uint8Array[] = [];
  for (const r of ordered) {
    const k = vault.find(r.keyId);
    if (k) keys.push(k.privateKey);
  }
  return keys;
}
