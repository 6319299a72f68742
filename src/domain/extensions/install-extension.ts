import { and, eq, ne } from "drizzle-orm";
import * as v from "valibot";
import { transaction } from "../../db/client.ts";
import { extensionInstallations } from "../../db/schema/index.ts";
import type { With } from "../context.ts";
import { DomainError } from "../errors.ts";
import { requireOwner } from "../internal/actors.ts";
import { appendAuditEvent } from "../internal/audit-chain.ts";
import { recordEvent } from "../internal/events.ts";
import { agentSigner } from "./internal/agent-signer.ts";
import { checkGrant, installationUuid } from "./internal/grant.ts";
import { GrantInput } from "./update-installation-permissions.ts";
import { findInstallation, installationView, keysFromManifest, type InstallResult } from "./internal/installation-row.ts";
import { issueToken } from "./internal/issue-token.ts";
import { manifestHashOf, parseManifest } from "./internal/manifest.ts";
import { resolveManifest, type ManifestSource } from "./internal/resolve-manifest.ts";

export const MANIFEST_HASH = v.pipe(v.string(), v.regex(/^sha256:[0-9a-f]{64}$/, "manifestHash: sha256:<64 lowercase hex>"), v.description("sha256:<hex SHA-256 of JCS(manifest)>, as the consent screen showed it"));

export const InstallExtensionInput = v.strictObject({
  source: v.pipe(
    v.picklist(["inline", "url", "marketplace"], "source: inline, url or marketplace"),
    v.description("inline: the manifest in the body (development); url: fetched from manifestUrl through the SSRF gate; marketplace: the approved manifest of extensionId in this node's marketplace, or in the one at marketplaceUrl"),
  ),
  manifest: v.optional(v.pipe(v.record(v.string(), v.unknown()), v.description("The manifest (source inline)"))),
  manifestUrl: v.optional(v.pipe(v.string(), v.maxLength(2048), v.description("Where the manifest is served (source url)"))),
  extensionId: v.optional(v.pipe(v.string(), v.maxLength(128), v.description("The extension to install (source marketplace)"))),
  version: v.optional(v.pipe(v.string(), v.maxLength(32), v.description("An approved version (source marketplace; default: the newest approved)"))),
  marketplaceUrl: v.optional(v.pipe(v.string(), v.maxLength(2048), v.description("Another node's marketplace, e.g. https://market.example (source marketplace; default: this node's)"))),
  manifestHash: MANIFEST_HASH,
  grant: GrantInput,
  ttlHours: v.optional(v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(24), v.description("Lifetime of the first token, capped to the manifest's token.ttlHours (default 4)"))),
});
export type InstallExtensionInput = v.InferOutput<typeof InstallExtensionInput>;

/**
 * The owner installs an extension (SPEC: created → installed, a delegation token issued): the
 * manifest from its source, pinned by the hash the owner consented to (409 manifest_changed),
 * validated, the grant checked against it (422), then the installation, its first token, the
 * first event of its audit chain and a feed event in one transaction.
 */
export async function installExtension(ctx: With<"node" | "vault" | "peers">, input: InstallExtensionInput): Promise<InstallResult> {
  requireOwner(ctx, "installs extensions");
  const document = await resolveManifest(ctx, sourceOf(input));
  const manifest = parseManifest(document);
  const hash = manifestHashOf(document);
  if (hash !== input.manifestHash) throw new DomainError("conflict", `the manifest is not the one consented to (its hash is ${hash})`, { reason: "manifest_changed" });
  const grant = checkGrant(manifest, input.grant);
  const signer = agentSigner(ctx);
  const now = ctx.clock.now();
  const id = installationUuid(ctx.ids.next());
  const keys = keysFromManifest(manifest);
  return transaction(ctx.db, (tx) => {
    const existing = tx.select({ id: extensionInstallations.id }).from(extensionInstallations).where(and(eq(extensionInstallations.extensionId, manifest.id), ne(extensionInstallations.status, "uninstalled"))).get();
    if (existing) throw new DomainError("conflict", `${manifest.id} is already installed (${existing.id})`, { reason: "already_installed" });
    tx.insert(extensionInstallations)
      .values({
        id,
        extensionId: manifest.id,
        version: manifest.version,
        source: input.source,
        sourceUrl: input.source === "url" ? (input.manifestUrl ?? null) : input.source === "marketplace" ? (input.marketplaceUrl ?? null) : null,
        manifestJson: JSON.stringify(document),
        manifestHash: hash,
        status: "active",
        permissionsJson: JSON.stringify(grant.permissions),
        layersJson: JSON.stringify(grant.layers),
        maxAutonomyTier: grant.maxAutonomyTier,
        keysJson: JSON.stringify(keys),
        createdAt: now,
        updatedAt: now,
      })
      .run();
    const row = findInstallation(tx, id)!;
    const key = keys.find((k) => k.status === "active")!;
    const token = issueToken(tx, row, signer, key.publicKeyMultibase, now, input.ttlHours);
    appendAuditEvent(tx, id, signer, ctx.ids.next(), now, { eventType: "delegation.granted", data: { by: "owner", extensionId: manifest.id, manifestHash: hash, ...grant } });
    recordEvent(tx, "installation.installed", now, { subjectId: id, extensionId: manifest.id });
    return { installation: installationView(tx, findInstallation(tx, id)!), ...token };
  });
}

function sourceOf(input: InstallExtensionInput): ManifestSource {
  if (input.source === "inline") {
    if (input.manifest === undefined) throw new DomainError("invalid_input", "manifest: required with source inline");
    return { source: "inline", manifest: input.manifest };
  }
  if (input.source === "marketplace") {
    if (input.extensionId === undefined) throw new DomainError("invalid_input", "extensionId: required with source marketplace");
    return { source: "marketplace", extensionId: input.extensionId, version: input.version, marketplaceUrl: input.marketplaceUrl };
  }
  if (input.manifestUrl === undefined) throw new DomainError("invalid_input", "manifestUrl: required with source url");
  return { source: "url", manifestUrl: input.manifestUrl };
}
