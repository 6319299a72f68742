import { and, desc, eq } from "drizzle-orm";
import type { Db, Tx } from "../../db/client.ts";
import { marketplaceExtensions, marketplaceVersions } from "../../db/schema/index.ts";

/** Listing states from which an extension can still be installed (notes/EXTENSIONS.md §1.6). */
export const INSTALLABLE_LISTINGS = ["listed", "unlisted"] as const;

/**
 * The approved manifest of `extensionId` in this node's marketplace (a given version, else the
 * newest approved one), or null when there is none or the listing no longer allows installs.
 * Shared by the marketplace (details) and the install verb (`source: "marketplace"`).
 */
export function approvedManifest(db: Db | Tx, extensionId: string, version?: string): { manifest: unknown; manifestHash: string; version: string } | null {
  const ext = db.select({ listingState: marketplaceExtensions.listingState }).from(marketplaceExtensions).where(eq(marketplaceExtensions.extensionId, extensionId)).get();
  if (!ext || !(INSTALLABLE_LISTINGS as readonly string[]).includes(ext.listingState)) return null;
  const where = and(eq(marketplaceVersions.extensionId, extensionId), eq(marketplaceVersions.reviewState, "approved"), version === undefined ? undefined : eq(marketplaceVersions.version, version));
  const rows = db.select().from(marketplaceVersions).where(where).orderBy(desc(marketplaceVersions.publishedAt)).all();
  const row = version === undefined ? rows.sort((a, b) => compareSemver(b.version, a.version))[0] : rows[0];
  return row ? { manifest: JSON.parse(row.manifestJson), manifestHash: row.manifestHash, version: row.version } : null;
}

/** Semver precedence (MAJOR.MINOR.PATCH, a pre-release below its release; pre-release tags compared as text). */
export function compareSemver(a: string, b: string): number {
  const parse = (s: string) => {
    const [core = "", pre] = s.split(/-(.*)/s);
    return { nums: core.split(".").map(Number), pre: pre ?? null };
  };
  const x = parse(a);
  const y = parse(b);
  for (let i = 0; i < 3; i++) if ((x.nums[i] ?? 0) !== (y.nums[i] ?? 0)) return (x.nums[i] ?? 0) - (y.nums[i] ?? 0);
  if (x.pre === y.pre) return 0;
  if (x.pre === null) return 1;
  if (y.pre === null) return -1;
  return x.pre < y.pre ? -1 : 1;
}
