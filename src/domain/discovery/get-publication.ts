import { inArray } from "drizzle-orm";
import { directoryPushes } from "../../db/schema/index.ts";
import type { With } from "../context.ts";
import { noAgentYet } from "../internal/errors.ts";
import { findAgentRow } from "../agent/find-agent-row.ts";
import { agentIdOf } from "../agent/agent-id-of.ts";
import { discoveryResult, profileOf, type DiscoveryResult } from "./internal/listings.ts";
import { discoveryDescriptor, type DiscoveryDescriptor } from "./discovery-descriptor.ts";
import { findOwnListing } from "./find-own-listing.ts";
import { requireOwner } from "../internal/actors.ts";
import { iso } from "../internal/iso.ts";
import { retryView, type RetryView } from "../internal/retry.ts";

export interface DirectoryPushState extends RetryView {
  directory: string;
  /** The latest action for this directory; null when nothing was ever pushed there. */
  action: "publish" | "unpublish" | null;
  state: "queued" | "delivered" | "failed" | "none";
  /** What the directory answered: `listed` or `delisted`. */
  remoteStatus: string | null;
}

export interface PublicationState {
  agentId: string;
  /** `unpublished` before the first publish. */
  status: "listed" | "delisted" | "unpublished";
  published: boolean;
  publishedAt: string | null;
  updatedAt: string | null;
  tags: string[];
  location: string | null;
  roles: string[];
  /** The card's INK discovery descriptor (null: the card has none). */
  discovery: DiscoveryDescriptor | null;
  /** What this node's own registry shows for the agent while listed. */
  listing: DiscoveryResult | null;
  directories: DirectoryPushState[];
}

/** `GET /api/svc/discovery`: the publication and each configured directory's push state. */
export function getPublication(ctx: With<"node" | "directory">): PublicationState {
  requireOwner(ctx, "manages the agent's publication");
  const agent = findAgentRow(ctx.db);
  if (!agent) throw noAgentYet();
  const row = findOwnListing(ctx.db, agent, ctx.node.wordmark);
  const p = row ? profileOf(row) : null;
  const pushes = ctx.directory.directories.length > 0 ? ctx.db.select().from(directoryPushes).where(inArray(directoryPushes.directory, [...ctx.directory.directories])).all() : [];
  return {
    agentId: agentIdOf(agent, ctx.node.wordmark),
    status: row ? (row.status === "listed" ? "listed" : "delisted") : "unpublished",
    published: row?.status === "listed",
    publishedAt: row?.status === "listed" ? iso(row.listedAt) : null,
    updatedAt: row ? iso(row.updatedAt) : null,
    tags: p?.tags ?? [],
    location: p?.location ?? null,
    roles: p?.roles ?? [],
    discovery: discoveryDescriptor(row),
    listing: row?.status === "listed" ? discoveryResult(row) : null,
    directories: ctx.directory.directories.map((directory) => {
      const push = pushes.find((x) => x.directory === directory);
      if (!push) return { directory, action: null, state: "none", attempts: 0, nextAttemptAt: null, lastAttemptAt: null, lastStatus: null, lastError: null, deliveredAt: null, remoteStatus: null };
      return { directory, action: push.action, state: push.status, ...retryView(push), remoteStatus: push.remoteStatus };
    }),
  };
}
