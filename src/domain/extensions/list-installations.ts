import { desc } from "drizzle-orm";
import { extensionInstallations } from "../../db/schema/index.ts";
import type { Ctx } from "../context.ts";
import { requireOwner } from "../internal/actors.ts";
import { installationView, type InstallationView } from "./internal/installation-row.ts";

/** Every installation, newest first, uninstalled ones included (their audit chains are kept). */
export function listInstallations(ctx: Ctx): { installations: InstallationView[] } {
  requireOwner(ctx, "lists extensions");
  return { installations: ctx.db.select().from(extensionInstallations).orderBy(desc(extensionInstallations.createdAt)).all().map((row) => installationView(ctx.db, row)) };
}
