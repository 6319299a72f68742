import { and, eq, ne } from "drizzle-orm";
import type { Tx } from "../../db/client.ts";
import { extensionInstallations } from "../../db/schema/index.ts";
import { recordEvent } from "../internal/events.ts";
import { grantOf } from "./internal/installation-row.ts";

/**
 * The marketplace suspended an extension, or lifted its suspension: every live installation of it
 * gets an `installation.updated` event saying so, for the owner's event stream (and, once lifted,
 * the extension's feed). The refusal itself is derived at each request (internal/suspension.ts).
 */
export function recordSuspensionChange(tx: Tx, extensionId: string, suspended: boolean, now: number): void {
  const rows = tx.select().from(extensionInstallations).where(and(eq(extensionInstallations.extensionId, extensionId), ne(extensionInstallations.status, "uninstalled"))).all();
  for (const row of rows) recordEvent(tx, "installation.updated", now, { subjectId: row.id, ...grantOf(row), suspended });
}
