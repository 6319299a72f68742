import { settings } from "../../db/schema/index.ts";
import type { Db } from "../../db/client.ts";
import { transaction } from "../../db/client.ts";

/** Settings `kith init` stored; flags and environment override them (config.ts). */
export function readStoredSettings(db: Db): Record<string, string> {
  return Object.fromEntries(db.select().from(settings).all().map((r) => [r.key, r.value]));
}

export function storeSettings(db: Db, values: Record<string, string>, now: number): void {
  transaction(db, (tx) => {
    for (const [key, value] of Object.entries(values)) {
      tx.insert(settings).values({ key, value, updatedAt: now }).onConflictDoUpdate({ target: settings.key, set: { value, updatedAt: now } }).run();
    }
  });
}
