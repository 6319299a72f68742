import { eq, sql } from "drizzle-orm";
import type { Db, Tx } from "../../../db/client.ts";
import { type ListingState, marketplaceReviews, type marketplaceExtensions } from "../../../db/schema/index.ts";

/** The consent title of each permission, shown next to the publisher's reason (notes/EXTENSIONS.md §1.7). */
export const PERMISSION_TITLES: Record<string, string> = {
  "connections:list": "See your contacts in the chosen circles",
  "layers:read": "See circle membership and relationship health",
  "graph:read:clusters:summary": "See how your contacts group together",
  "graph:read:clusters:members": "…and who is in each group",
  "graph:read:bridges": "See who connects your groups",
  "events:subscribe": "Be told when things change",
  "profile:read": "Read your public profile",
  "intents:send": "Send messages for you (tier-limited)",
  "agent.chat": "Talk to your agent",
};

/** The settings key of the owner's auto-approve switch. */
export const AUTO_APPROVE_SETTING = "marketplace.autoApprove";

/** How long a publisher check counts as "verified" before it must be repeated. */
export const PUBLISHER_VERIFIED_FOR_MS = 7 * 24 * 3600_000;

type ExtensionRow = typeof marketplaceExtensions.$inferSelect;

export interface ReviewStats {
  count: number;
  /** Mean rating to one decimal, null without reviews. */
  average: number | null;
  distribution: Record<"1" | "2" | "3" | "4" | "5", number>;
}

export function reviewStats(db: Db | Tx, extensionId: string): ReviewStats {
  const rows = db
    .select({ rating: marketplaceReviews.rating, n: sql<number>`count(*)` })
    .from(marketplaceReviews)
    .where(eq(marketplaceReviews.extensionId, extensionId))
    .groupBy(marketplaceReviews.rating)
    .all();
  const distribution = { "1": 0, "2": 0, "3": 0, "4": 0, "5": 0 };
  let count = 0;
  let sum = 0;
  for (const r of rows) {
    distribution[String(r.rating) as keyof typeof distribution] = r.n;
    count += r.n;
    sum += r.rating * r.n;
  }
  return { count, average: count === 0 ? null : Math.round((sum / count) * 10) / 10, distribution };
}

export interface ExtensionSummary {
  extensionId: string;
  name: string;
  summary: string;
  icon128: string | null;
  publisher: { name: string; domain: string; verified: boolean };
  latestVersion: string;
  categories: string[];
  listingState: ListingState;
  reviewStats: { count: number; average: number | null };
}

export function summaryOf(db: Db | Tx, row: ExtensionRow, manifest: Record<string, any>, now: number): ExtensionSummary {
  const stats = reviewStats(db, row.extensionId);
  return {
    extensionId: row.extensionId,
    name: row.name,
    summary: row.summary,
    icon128: typeof manifest.icons?.["128"]?.url === "string" ? manifest.icons["128"].url : null,
    publisher: { name: row.publisherName, domain: row.publisherDomain, verified: row.publisherVerifiedAt !== null && now - row.publisherVerifiedAt < PUBLISHER_VERIFIED_FOR_MS },
    latestVersion: row.latestVersion ?? "",
    categories: JSON.parse(row.categories) as string[],
    listingState: row.listingState,
    reviewStats: { count: stats.count, average: stats.average },
  };
}
