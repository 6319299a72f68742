import { settings } from "../../db/schema/index.ts";
import type { Db } from "../../db/client.ts";
import { transaction } from "../../db/client.ts";

export function storeSettings(db: Db, values: Record<string, string>, now: number): void {
  transaction(db, (tx) => {
    for (const [key, value] of Object.entries(values)) {
      tx.insert(settings).values({ key, value, updatedAt: now }).onConflictDoUpdate({ target: settings.key, set: { value, updatedAt: now } }).run();
    }
  });
}
