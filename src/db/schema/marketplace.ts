import { sql } from "drizzle-orm";
import { check, index, integer, primaryKey, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";

export const REVIEW_STATES = ["draft", "submitted", "in_review", "approved", "rejected", "withdrawn"] as const;
export type ReviewState = (typeof REVIEW_STATES)[number];
export const LISTING_STATES = ["unlisted", "listed", "delisted", "suspended"] as const;
export type ListingState = (typeof LISTING_STATES)[number];

/**
 * One extension in this node's marketplace (SPEC "Marketplace"; notes/EXTENSIONS.md §1.6), with
 * its listing state. Name, summary, publisher and categories are those of the newest approved
 * version; only `listed` rows are in the full-text index `marketplace_fts` (kept in step by
 * triggers, migration 0010), keyed by the integer `seq`.
 */
export const marketplaceExtensions = sqliteTable(
  "marketplace_extensions",
  {
    seq: integer("seq").primaryKey({ autoIncrement: true }),
    extensionId: text("extension_id").notNull(),
    listingState: text("listing_state", { enum: LISTING_STATES }).notNull(),
    latestVersion: text("latest_version"),
    name: text("name").notNull(),
    summary: text("summary").notNull(),
    publisherName: text("publisher_name").notNull(),
    publisherDomain: text("publisher_domain").notNull(),
    /** JSON array of category names. */
    categories: text("categories").notNull(),
    /** Publisher verification (a badge, never a gate): when the well-known file last listed the id and keys. */
    publisherVerifiedAt: integer("publisher_verified_at"),
    publisherCheckedAt: integer("publisher_checked_at"),
    createdAt: integer("created_at").notNull(),
    updatedAt: integer("updated_at").notNull(),
  },
  (t) => [
    uniqueIndex("marketplace_extensions_id_idx").on(t.extensionId),
    check("marketplace_extensions_listing", sql`${t.listingState} in ('unlisted', 'listed', 'delisted', 'suspended')`),
  ],
);

/** Each submitted version of an extension with its review state and, when rejected, the reasons. */
export const marketplaceVersions = sqliteTable(
  "marketplace_versions",
  {
    extensionId: text("extension_id").notNull(),
    version: text("version").notNull(),
    manifestJson: text("manifest_json").notNull(),
    manifestHash: text("manifest_hash").notNull(),
    reviewState: text("review_state", { enum: REVIEW_STATES }).notNull(),
    /** JSON array of `{code, message}` when rejected. */
    reasonsJson: text("reasons_json"),
    submittedAt: integer("submitted_at").notNull(),
    reviewedAt: integer("reviewed_at"),
    publishedAt: integer("published_at"),
  },
  (t) => [
    primaryKey({ columns: [t.extensionId, t.version] }),
    index("marketplace_versions_state_idx").on(t.reviewState, t.submittedAt),
    check("marketplace_versions_state", sql`${t.reviewState} in ('draft', 'submitted', 'in_review', 'approved', 'rejected', 'withdrawn')`),
  ],
);

/** Ratings: one per (extension, reviewer agent) — this node's own agent for its owner, a verified INK sender otherwise. */
export const marketplaceReviews = sqliteTable(
  "marketplace_reviews",
  {
    extensionId: text("extension_id").notNull(),
    reviewerAgentId: text("reviewer_agent_id").notNull(),
    rating: integer("rating").notNull(),
    comment: text("comment"),
    createdAt: integer("created_at").notNull(),
  },
  (t) => [primaryKey({ columns: [t.extensionId, t.reviewerAgentId] }), check("marketplace_reviews_rating", sql`${t.rating} between 1 and 5`)],
);
