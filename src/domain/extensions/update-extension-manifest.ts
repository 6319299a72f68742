import { eq } from "drizzle-orm";
import * as v from "valibot";
import { transaction } from "../../db/client.ts";
import { extensionInstallations } from "../../db/schema/index.ts";
import type { With } from "../context.ts";
import { DomainError } from "../errors.ts";
import { requireOwner } from "../internal/actors.ts";
import { appendAuditEvent } from "../internal/audit-chain.ts";
import { recordEvent } from "../internal/events.ts";
import { agentSigner } from "./internal/agent-signer.ts";
import { asksNoMore } from "./internal/grant.ts";
import { findInstallation, installedRow, installationView, keysOf, manifestOf, type InstallationView } from "./internal/installation-row.ts";
import { manifestHashOf, parseManifest } from "./internal/manifest.ts";
import { rotateKeys } from "./internal/rotate-keys.ts";
import { resolveManifest } from "./internal/resolve-manifest.ts";
import { MANIFEST_HASH } from "./install-extension.ts";

export const UpdateManifestInput = v.strictObject({
  source: v.picklist(["inline", "url"], "source: inline or url"),
  manifest: v.optional(v.record(v.string(), v.unknown())),
  manifestUrl: v.optional(v.pipe(v.string(), v.maxLength(2048))),
  manifestHash: MANIFEST_HASH,
});
export type UpdateManifestInput = v.InferOutput<typeof UpdateManifestInput>;

/**
 * A new manifest for an installed extension (same id, pinned by hash). One that asks for nothing
 * more applies at once (a key-only rotation keeps the old keys valid for 24 h); one that asks for
 * more waits as `pending_update` for POST …/accept-update, and the running grant is not widened.
 */
export async function updateExtensionManifest(ctx: With<"node" | "vault" | "peers">, id: string, input: UpdateManifestInput): Promise<InstallationView> {
  requireOwner(ctx, "updates extensions");
  const from = input.source === "inline" ? { source: "inline" as const, manifest: input.manifest } : { source: "url" as const, manifestUrl: input.manifestUrl ?? "" };
  if (from.source === "inline" && input.manifest === undefined) throw new DomainError("invalid_input", "manifest: required with source inline");
  const document = await resolveManifest(ctx, from);
  const next = parseManifest(document);
  const hash = manifestHashOf(document);
  if (hash !== input.manifestHash) throw new DomainError("conflict", `the manifest is not the one consented to (its hash is ${hash})`, { reason: "manifest_changed" });
  const signer = agentSigner(ctx);
  const now = ctx.clock.now();
  return transaction(ctx.db, (tx) => {
    const row = installedRow(tx, id);
    if (next.id !== row.extensionId) throw new DomainError("unprocessable", `the manifest is for ${next.id}, not ${row.extensionId}`, { reason: "extension_mismatch" });
    if (!asksNoMore(manifestOf(row), next)) {
      tx.update(extensionInstallations).set({ status: "pending_update", pendingManifestJson: JSON.stringify(document), pendingManifestHash: hash, updatedAt: now }).where(eq(extensionInstallations.id, id)).run();
      recordEvent(tx, "installation.update_pending", now, { subjectId: id, version: next.version });
    } else {
      tx.update(extensionInstallations)
        .set({ version: next.version, manifestJson: JSON.stringify(document), manifestHash: hash, keysJson: JSON.stringify(rotateKeys(keysOf(row), next, now)), updatedAt: now })
        .where(eq(extensionInstallations.id, id))
        .run();
      appendAuditEvent(tx, id, signer, ctx.ids.next(), now, { eventType: "delegation.granted", data: { by: "owner", manifestHash: hash, version: next.version } });
    }
    return installationView(tx, findInstallation(tx, id)!);
  });
}
