import { eq } from "drizzle-orm";
import * as v from "valibot";
import { DUNBAR_LAYERS } from "../../db/schema/connections.ts";
import { AUTONOMY_TIERS } from "../../security/extension-token.ts";
import { transaction } from "../../db/client.ts";
import { extensionInstallations } from "../../db/schema/index.ts";
import type { With } from "../context.ts";
import { requireOwner } from "../internal/actors.ts";
import { appendAuditEvent } from "../internal/audit-chain.ts";
import { recordEvent } from "../internal/events.ts";
import { agentSigner } from "./internal/agent-signer.ts";
import { checkGrant } from "./internal/grant.ts";
import { findInstallation, installedRow, installationView, manifestOf, usableKeys, type InstallResult } from "./internal/installation-row.ts";
import { issueToken } from "./internal/issue-token.ts";

/** What the owner grants: permissions, layers and a tier, each within what the manifest asks. */
export const GrantInput = v.strictObject({
  permissions: v.pipe(v.array(v.pipe(v.string(), v.maxLength(128))), v.maxLength(16), v.description("Subset of the manifest's permissions; every required one included")),
  layers: v.pipe(v.array(v.picklist(DUNBAR_LAYERS, `layers: each one of ${DUNBAR_LAYERS.join(", ")}`)), v.maxLength(5), v.description("Subset of manifest.layers.requested")),
  maxAutonomyTier: v.optional(v.pipe(v.picklist(AUTONOMY_TIERS, "maxAutonomyTier: transactional, social or personal"), v.description("At most the manifest's; default the manifest's (transactional without one)"))),
});
export type GrantInput = v.InferOutput<typeof GrantInput>;

/**
 * The owner changes the grant (SPEC: installed → installed), within the installed manifest
 * (422 otherwise). A new token replaces the stored hash, so the outstanding one fails check 3
 * (`token_revoked`) on its next request: narrowing takes effect at once; the extension renews.
 */
export function updateInstallationPermissions(ctx: With<"node" | "vault">, id: string, input: GrantInput): InstallResult {
  requireOwner(ctx, "changes extension permissions");
  const signer = agentSigner(ctx);
  const now = ctx.clock.now();
  return transaction(ctx.db, (tx) => {
    const row = installedRow(tx, id);
    const grant = checkGrant(manifestOf(row), input);
    tx.update(extensionInstallations)
      .set({ permissionsJson: JSON.stringify(grant.permissions), layersJson: JSON.stringify(grant.layers), maxAutonomyTier: grant.maxAutonomyTier, updatedAt: now })
      .where(eq(extensionInstallations.id, id))
      .run();
    const updated = findInstallation(tx, id)!;
    const token = issueToken(tx, updated, signer, usableKeys(updated, now).find((k) => k.status === "active")!.publicKeyMultibase, now);
    appendAuditEvent(tx, id, signer, ctx.ids.next(), now, { eventType: "delegation.granted", data: { by: "owner", ...grant } });
    recordEvent(tx, "installation.updated", now, { subjectId: id, ...grant });
    return { installation: installationView(tx, findInstallation(tx, id)!), ...token };
  });
}
