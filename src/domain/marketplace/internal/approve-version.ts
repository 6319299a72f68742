import { and, eq } from "drizzle-orm";
import type { Tx } from "../../../db/client.ts";
import { marketplaceExtensions, marketplaceVersions } from "../../../db/schema/index.ts";
import { compareSemver } from "../../internal/marketplace-manifest.ts";

/**
 * A version becomes `approved` and is published: when it is the newest approved version, the
 * listing takes its name, summary, publisher and categories; an extension approved for the first
 * time goes from `unlisted` to `listed` (a publisher's delisting or an operator's suspension stays).
 */
export function approveVersion(tx: Tx, extensionId: string, version: string, now: number): void {
  const where = and(eq(marketplaceVersions.extensionId, extensionId), eq(marketplaceVersions.version, version));
  tx.update(marketplaceVersions).set({ reviewState: "approved", reviewedAt: now, publishedAt: now, reasonsJson: null }).where(where).run();
  const ext = tx.select().from(marketplaceExtensions).where(eq(marketplaceExtensions.extensionId, extensionId)).get();
  const row = tx.select({ manifestJson: marketplaceVersions.manifestJson }).from(marketplaceVersions).where(where).get();
  if (!ext || !row) return;
  if (ext.latestVersion !== null && compareSemver(version, ext.latestVersion) < 0) return;
  const m = JSON.parse(row.manifestJson) as { name: string; summary: string; publisher: { name: string; domain: string }; categories?: string[] };
  tx.update(marketplaceExtensions)
    .set({
      latestVersion: version,
      name: m.name,
      summary: m.summary,
      publisherName: m.publisher.name,
      publisherDomain: m.publisher.domain,
      categories: JSON.stringify(m.categories ?? []),
      listingState: ext.latestVersion === null && ext.listingState === "unlisted" ? "listed" : ext.listingState,
      updatedAt: now,
    })
    .where(eq(marketplaceExtensions.extensionId, extensionId))
    .run();
}
