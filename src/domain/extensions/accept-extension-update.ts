import { eq } from "drizzle-orm";
import { transaction } from "../../db/client.ts";
import { extensionInstallations } from "../../db/schema/index.ts";
import type { With } from "../context.ts";
import { requireOwner } from "../internal/actors.ts";
import { appendAuditEvent } from "../internal/audit-chain.ts";
import { conflict, notFound } from "../internal/errors.ts";
import { recordEvent } from "../internal/events.ts";
import { agentSigner } from "./internal/agent-signer.ts";
import { findInstallation, grantOf, installationView, keysOf, type InstallationView } from "./internal/installation-row.ts";
import type { Manifest } from "./internal/manifest.ts";
import { rotateKeys } from "./internal/rotate-keys.ts";

/**
 * The owner accepts a pending manifest update (EXTENSIONS §1.5): the new manifest and keys
 * apply; the grant stays what the owner granted (what the new manifest no longer asks for is
 * dropped; a wider grant is a separate PUT …/permissions).
 */
export function acceptExtensionUpdate(ctx: With<"node" | "vault">, id: string): InstallationView {
  requireOwner(ctx, "accepts extension updates");
  const signer = agentSigner(ctx);
  const now = ctx.clock.now();
  return transaction(ctx.db, (tx) => {
    const row = findInstallation(tx, id);
    if (!row) throw notFound("installation");
    if (row.status !== "pending_update" || !row.pendingManifestJson || !row.pendingManifestHash) throw conflict("no update is pending");
    const next = JSON.parse(row.pendingManifestJson) as Manifest;
    const grant = grantOf(row);
    const asked = new Set<string>(next.permissions.map((p) => p.name));
    const layers = new Set<string>(next.layers?.requested ?? []);
    const kept = { permissions: grant.permissions.filter((p) => asked.has(p)), layers: grant.layers.filter((l) => layers.has(l)) };
    tx.update(extensionInstallations)
      .set({
        status: "active",
        version: next.version,
        manifestJson: row.pendingManifestJson,
        manifestHash: row.pendingManifestHash,
        pendingManifestJson: null,
        pendingManifestHash: null,
        keysJson: JSON.stringify(rotateKeys(keysOf(row), next, now)),
        permissionsJson: JSON.stringify(kept.permissions),
        layersJson: JSON.stringify(kept.layers),
        updatedAt: now,
      })
      .where(eq(extensionInstallations.id, id))
      .run();
    appendAuditEvent(tx, id, signer, ctx.ids.next(), now, { eventType: "delegation.granted", data: { by: "owner", manifestHash: row.pendingManifestHash, version: next.version, ...kept, maxAutonomyTier: grant.maxAutonomyTier } });
    recordEvent(tx, "installation.updated", now, { subjectId: id, ...kept, maxAutonomyTier: grant.maxAutonomyTier });
    return installationView(tx, findInstallation(tx, id)!);
  });
}
