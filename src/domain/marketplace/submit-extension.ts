import { and, eq } from "drizzle-orm";
import * as v from "valibot";
import { transaction } from "../../db/client.ts";
import { marketplaceExtensions, marketplaceVersions, settings } from "../../db/schema/index.ts";
import type { With } from "../context.ts";
import { DomainError } from "../errors.ts";
import { requireOwner } from "../internal/actors.ts";
import { readManifest } from "../extensions/read-manifest.ts";
import { approveVersion } from "./internal/approve-version.ts";
import { AUTO_APPROVE_SETTING } from "./internal/views.ts";

export const SubmitExtensionInput = v.union(
  [
    v.strictObject({ manifest: v.pipe(v.record(v.string(), v.unknown()), v.description("The manifest itself")) }),
    v.strictObject({ manifestUrl: v.pipe(v.string(), v.maxLength(2048), v.description("Where the manifest is served: fetched once through the SSRF gate")) }),
  ],
  "a body with manifest (an object) or manifestUrl (a string)",
);
export type SubmitExtensionInput = v.InferOutput<typeof SubmitExtensionInput>;

export interface SubmitResult {
  extensionId: string;
  version: string;
  manifestHash: string;
  reviewState: "submitted" | "approved";
}

/**
 * `POST /marketplace/submit` (owner): a manifest enters review as `extensionId@version`
 * (notes/EXTENSIONS.md §1.6). It is validated member by member first (400 naming the member); a
 * version already submitted is 409 `version_exists` unless it was rejected or withdrawn. With
 * the owner's auto-approve setting (a personal node reviewing its own work) it is approved and
 * listed at once; otherwise it waits in `submitted` for the owner's review.
 */
export async function submitExtension(ctx: With<"peers">, input: SubmitExtensionInput): Promise<SubmitResult> {
  requireOwner(ctx, "submits extensions");
  const { document, manifest, manifestHash } = await readManifest(ctx, "manifest" in input ? { source: "inline", manifest: input.manifest } : { source: "url", manifestUrl: input.manifestUrl });
  const now = ctx.clock.now();
  return transaction(ctx.db, (tx) => {
    const existing = tx.select({ reviewState: marketplaceVersions.reviewState }).from(marketplaceVersions).where(and(eq(marketplaceVersions.extensionId, manifest.id), eq(marketplaceVersions.version, manifest.version))).get();
    if (existing && existing.reviewState !== "rejected" && existing.reviewState !== "withdrawn") {
      throw new DomainError("conflict", `${manifest.id}@${manifest.version} is already ${existing.reviewState}: submit a new version`, { reason: "version_exists" });
    }
    const row = { manifestJson: JSON.stringify(document), manifestHash, reviewState: "submitted" as const, reasonsJson: null, submittedAt: now, reviewedAt: null, publishedAt: null };
    if (existing) tx.update(marketplaceVersions).set(row).where(and(eq(marketplaceVersions.extensionId, manifest.id), eq(marketplaceVersions.version, manifest.version))).run();
    else tx.insert(marketplaceVersions).values({ extensionId: manifest.id, version: manifest.version, ...row }).run();
    tx.insert(marketplaceExtensions)
      .values({
        extensionId: manifest.id,
        listingState: "unlisted",
        latestVersion: null,
        name: manifest.name,
        summary: manifest.summary,
        publisherName: manifest.publisher.name,
        publisherDomain: manifest.publisher.domain,
        categories: JSON.stringify(manifest.categories ?? []),
        createdAt: now,
        updatedAt: now,
      })
      .onConflictDoNothing()
      .run();
    const auto = tx.select({ value: settings.value }).from(settings).where(eq(settings.key, AUTO_APPROVE_SETTING)).get()?.value === "true";
    if (auto) approveVersion(tx, manifest.id, manifest.version, now);
    return { extensionId: manifest.id, version: manifest.version, manifestHash, reviewState: auto ? "approved" : "submitted" };
  });
}
