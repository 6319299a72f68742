import { eq } from "drizzle-orm";
import { marketplaceExtensions, marketplaceVersions } from "../../db/schema/index.ts";
import type { Ctx } from "../context.ts";
import { iso } from "../internal/iso.ts";
import { approvedManifest } from "../internal/marketplace-manifest.ts";
import { type ExtensionSummary, PERMISSION_TITLES, type ReviewStats, reviewStats, summaryOf } from "./internal/views.ts";

export interface ExtensionDetails extends Omit<ExtensionSummary, "reviewStats"> {
  manifest: Record<string, unknown>;
  manifestHash: string;
  versions: Array<{ version: string; reviewState: string; publishedAt: string | null }>;
  reviewStats: ReviewStats;
  permissionsSummary: Array<{ name: string; required: boolean; reason: string; title: string }>;
  layersRequested: { requested: string[]; reason: string } | null;
  maxAutonomyTier: string | null;
  intents: string[];
}

/**
 * `GET /marketplace/extensions/:extensionId` (no auth): what a consent screen needs — the newest
 * approved manifest and its hash (the install pins it), the publisher and its badge, every version
 * with its review state, review stats and each requested permission with its human title and the
 * publisher's reason. Null (404) unless the extension has an approved version and is listed or
 * unlisted.
 */
export function getMarketplaceExtension(ctx: Ctx, extensionId: string): ExtensionDetails | null {
  const row = ctx.db.select().from(marketplaceExtensions).where(eq(marketplaceExtensions.extensionId, extensionId)).get();
  const approved = row ? approvedManifest(ctx.db, extensionId) : null;
  if (!row || !approved) return null;
  const manifest = approved.manifest as Record<string, any>;
  const versions = ctx.db
    .select({ version: marketplaceVersions.version, reviewState: marketplaceVersions.reviewState, publishedAt: marketplaceVersions.publishedAt })
    .from(marketplaceVersions)
    .where(eq(marketplaceVersions.extensionId, extensionId))
    .all()
    .filter((v) => v.reviewState !== "draft" && v.reviewState !== "withdrawn");
  const permissions = (manifest.permissions ?? []) as Array<{ name: string; required: boolean; reason: string }>;
  return {
    ...summaryOf(ctx.db, row, manifest, ctx.clock.now()),
    latestVersion: approved.version,
    manifest,
    manifestHash: approved.manifestHash,
    versions: versions.map((v) => ({ version: v.version, reviewState: v.reviewState, publishedAt: iso(v.publishedAt) })),
    reviewStats: reviewStats(ctx.db, extensionId),
    permissionsSummary: permissions.map((p) => ({ name: p.name, required: p.required, reason: p.reason, title: PERMISSION_TITLES[p.name] ?? p.name })),
    layersRequested: manifest.layers ?? null,
    maxAutonomyTier: manifest.maxAutonomyTier ?? null,
    intents: manifest.intents ?? [],
  };
}
