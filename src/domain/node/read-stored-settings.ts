import { settings } from "../../db/schema/index.ts";
import type { Db } from "../../db/client.ts";

/** Settings `kith init` stored; flags and environment override them (config.ts). */
export function readStoredSettings(db: Db): Record<string, string> {
  return Object.fromEntries(db.select().from(settings).all().map((r) => [r.key, r.value]));
}

