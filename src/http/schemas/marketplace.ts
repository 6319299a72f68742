import * as v from "valibot";

const Publisher = v.object({ name: v.string(), domain: v.string(), verified: v.pipe(v.boolean(), v.description("The publisher's domain lists this extension and its keys in /.well-known/kith-publisher.json (a badge, never a gate)")) });
const Stats = v.object({ count: v.number(), average: v.nullable(v.number()) });

export const ExtensionSummaryDoc = v.object({
  extensionId: v.string(),
  name: v.string(),
  summary: v.string(),
  icon128: v.nullable(v.string()),
  publisher: Publisher,
  latestVersion: v.string(),
  categories: v.array(v.string()),
  listingState: v.picklist(["unlisted", "listed", "delisted", "suspended"]),
  reviewStats: Stats,
});

export const SearchResultsDoc = v.object({ results: v.array(ExtensionSummaryDoc) });

export const ReviewStatsDoc = v.object({
  count: v.number(),
  average: v.pipe(v.nullable(v.number()), v.description("Mean rating, one decimal")),
  distribution: v.object({ "1": v.number(), "2": v.number(), "3": v.number(), "4": v.number(), "5": v.number() }),
});

export const ExtensionDetailsDoc = v.object({
  ...ExtensionSummaryDoc.entries,
  reviewStats: ReviewStatsDoc,
  manifest: v.pipe(v.record(v.string(), v.unknown()), v.description("The newest approved manifest, as submitted")),
  manifestHash: v.pipe(v.string(), v.description("sha256:<hex of JCS(manifest)>: pass it to the install, which refuses other bytes")),
  versions: v.array(v.object({ version: v.string(), reviewState: v.string(), publishedAt: v.nullable(v.string()) })),
  permissionsSummary: v.array(v.object({ name: v.string(), required: v.boolean(), reason: v.string(), title: v.string() })),
  layersRequested: v.nullable(v.object({ requested: v.array(v.string()), reason: v.string() })),
  maxAutonomyTier: v.nullable(v.string()),
  intents: v.array(v.string()),
});

export const ManifestPreviewDoc = v.object({
  extensionId: v.string(),
  name: v.string(),
  summary: v.string(),
  version: v.string(),
  publisher: v.object({ name: v.string(), domain: v.string() }),
  manifest: v.pipe(v.unknown(), v.description("The manifest as fetched (what the hash covers)")),
  manifestHash: v.pipe(v.string(), v.description("sha256:<hex of JCS(manifest)>: pass it to the install, which refuses other bytes")),
  permissionsSummary: ExtensionDetailsDoc.entries.permissionsSummary,
  layersRequested: ExtensionDetailsDoc.entries.layersRequested,
  maxAutonomyTier: v.nullable(v.string()),
  intents: v.array(v.string()),
});

export const SubmittedDoc = v.object({ extensionId: v.string(), version: v.string(), manifestHash: v.string(), reviewState: v.picklist(["submitted", "approved"]) });

const Reason = v.object({ code: v.string(), message: v.string() });

export const ReviewedDoc = v.object({ extensionId: v.string(), version: v.string(), reviewState: v.string(), reasons: v.optional(v.array(Reason)) });

export const SubmissionsDoc = v.object({
  submissions: v.array(
    v.object({
      extensionId: v.string(),
      version: v.string(),
      manifestHash: v.string(),
      reviewState: v.string(),
      reasons: v.array(Reason),
      manifest: v.record(v.string(), v.unknown()),
      submittedAt: v.nullable(v.string()),
      reviewedAt: v.nullable(v.string()),
    }),
  ),
});

export const ListingDoc = v.object({ extensionId: v.string(), listingState: v.string() });
export const MarketplaceSettingsDoc = v.object({ autoApprove: v.boolean() });
export const RatedDoc = v.object({ extensionId: v.string(), reviewer: v.pipe(v.string(), v.description("The agent whose vote this is")), rating: v.number(), reviewStats: ReviewStatsDoc });
export const PublisherCheckDoc = v.object({ extensionId: v.string(), domain: v.string(), verified: v.boolean(), checkedAt: v.nullable(v.string()) });
