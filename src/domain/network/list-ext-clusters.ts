import type { With } from "../context.ts";
import { requireExtension } from "../internal/actors.ts";
import { readAnalytics } from "./internal/analytics.ts";
import { served } from "./internal/answers.ts";
import { grantedLayers } from "./internal/ext-read.ts";
import { clustersBody } from "./internal/graph-bodies.ts";

/**
 * `GET /ext/v1/clusters` (graph:read:clusters:summary; member lists with graph:read:clusters:members):
 * clusters with at least one visible member, every number over visible members only.
 */
export async function listExtClusters(ctx: With<"network">) {
  const actor = requireExtension(ctx, "graph:read:clusters:summary");
  const a = await readAnalytics(ctx, grantedLayers(actor));
  const members = actor.permissions.includes("graph:read:clusters:members");
  return served(ctx.db, a.etag, `clusters|${members}`, () => clustersBody(a, { members }));
}
