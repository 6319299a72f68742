import { eq } from "drizzle-orm";
import { transaction } from "../../db/client.ts";
import { extensionInstallations } from "../../db/schema/index.ts";
import type { With } from "../context.ts";
import { requireOwner } from "../internal/actors.ts";
import { appendAuditEvent } from "../internal/audit-chain.ts";
import { notFound } from "../internal/errors.ts";
import { recordEvent } from "../internal/events.ts";
import { agentSigner } from "./internal/agent-signer.ts";
import { findInstallation, installationView, type InstallationView } from "./internal/installation-row.ts";

/**
 * The owner uninstalls (SPEC: installed → uninstalled, token revoked). The row and its audit chain
 * stay; every request with its token now fails SPEC check 4 (`installation_inactive`). Repeating
 * it answers the same view.
 */
export function uninstallExtension(ctx: With<"node" | "vault">, id: string): InstallationView {
  requireOwner(ctx, "uninstalls extensions");
  const signer = agentSigner(ctx);
  const now = ctx.clock.now();
  return transaction(ctx.db, (tx) => {
    const row = findInstallation(tx, id);
    if (!row) throw notFound("installation");
    if (row.status !== "uninstalled") {
      tx.update(extensionInstallations).set({ status: "uninstalled", uninstalledAt: now, updatedAt: now, pendingManifestJson: null, pendingManifestHash: null }).where(eq(extensionInstallations.id, id)).run();
      appendAuditEvent(tx, id, signer, ctx.ids.next(), now, { eventType: "delegation.revoked", data: { by: "owner" } });
      recordEvent(tx, "installation.revoked", now, { subjectId: id });
    }
    return installationView(tx, findInstallation(tx, id)!);
  });
}
