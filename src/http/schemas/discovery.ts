import * as v from "valibot";

const nts = (description: string) => v.pipe(v.nullable(v.string()), v.description(description));

/** SPEC DiscoveryResult (+ headline, openTo from the search example, and where the card lives). */
const RESULT = {
    agentId: v.string(),
    handle: v.string(),
    displayName: v.string(),
    bio: v.pipe(v.string(), v.description("The profile headline (profile snapshots have no separate bio), else the display name")),
    skills: v.array(v.string()),
    interests: v.array(v.string()),
    headline: v.string(),
    openTo: v.array(v.string()),
    tags: v.pipe(v.array(v.string()), v.description("The card's INK discovery tags (searched, and matched by the skills filter)")),
    roles: v.array(v.string()),
    location: v.nullable(v.string()),
    cardUrl: v.pipe(v.string(), v.description("The agent's Agent Card URL (fetch it there; this node serves only its own card)")),
    source: v.pipe(v.picklist(["self", "remote"]), v.description("self: this node's own agent; remote: an agent listed with this node")),
};
export const DiscoveryResultDoc = v.pipe(v.object(RESULT), v.description("DiscoveryResult"));

export const DiscoverResponseDoc = v.object({ results: v.array(DiscoveryResultDoc) });

export const DiscoveryDescriptorDoc = v.pipe(
  v.object({
    enabled: v.boolean(),
    scope: v.literal("public"),
    tags: v.optional(v.array(v.string())),
    queryable: v.optional(v.boolean()),
    updatedAt: v.string(),
    location: v.optional(v.string()),
    roles: v.optional(v.array(v.string())),
  }),
  v.description("The card's INK discovery descriptor (location and roles are Kith members INK validators ignore)"),
);

export const DirectoryPushDoc = v.pipe(
  v.object({
    directory: v.string(),
    action: v.nullable(v.picklist(["publish", "unpublish"])),
    state: v.pipe(v.picklist(["queued", "delivered", "failed", "none"]), v.description("none: nothing pushed there yet")),
    attempts: v.number(),
    nextAttemptAt: nts("When the next attempt is due (queued only)"),
    lastAttemptAt: nts("RFC 3339"),
    lastStatus: v.nullable(v.number()),
    lastError: nts("Why the last attempt failed (network error or the directory's error code)"),
    deliveredAt: nts("RFC 3339"),
    remoteStatus: nts("What the directory answered: listed or delisted"),
  }),
  v.description("Push state of this node's publication at one directory (KITH_DIRECTORIES)"),
);

export const PublicationDoc = v.pipe(
  v.object({
    agentId: v.string(),
    status: v.picklist(["listed", "delisted", "unpublished"]),
    published: v.boolean(),
    publishedAt: v.nullable(v.string()),
    updatedAt: v.nullable(v.string()),
    tags: v.array(v.string()),
    location: v.nullable(v.string()),
    roles: v.array(v.string()),
    discovery: v.nullable(DiscoveryDescriptorDoc),
    listing: v.nullable(DiscoveryResultDoc),
    directories: v.array(DirectoryPushDoc),
  }),
  v.description("The agent's publication in the discovery registry"),
);

export const DirectoryListingDoc = v.pipe(
  v.object({
    ...RESULT,
    status: v.picklist(["listed", "delisted", "dropped"]),
    listedAt: v.string(),
    updatedAt: v.string(),
    lastValidatedAt: v.nullable(v.string()),
    nextValidationAt: v.nullable(v.string()),
    failures: v.pipe(v.number(), v.description("Consecutive re-validations that could not reach the card")),
    lastError: nts("Why the last re-validation failed or the listing was dropped"),
  }),
  v.description("A listing in this node's directory (owner view)"),
);

export const ListingAnswerDoc = v.pipe(
  v.object({
    status: v.picklist(["listed", "delisted"]),
    agentId: v.string(),
    handle: v.nullable(v.string()),
    listedAt: v.nullable(v.string()),
    nextValidationAt: nts("When the directory re-fetches the card next"),
  }),
  v.description("The directory's answer to a listing request"),
);

export const DiscoveryQueryAnswerDoc = v.object({
  protocol: v.literal("ink/0.1"),
  results: v.array(DiscoveryResultDoc),
  query: v.object({ tags: v.array(v.string()), limit: v.number() }),
});
