import type { Ctx } from "../context.ts";
import { requireOwner } from "../internal/actors.ts";
import { notFound } from "../internal/errors.ts";
import { findInstallation, installationView, type InstallationView } from "./internal/installation-row.ts";

export function getInstallation(ctx: Ctx, id: string): InstallationView {
  requireOwner(ctx, "reads installations");
  const row = findInstallation(ctx.db, id);
  if (!row) throw notFound("installation");
  return installationView(ctx.db, row);
}
