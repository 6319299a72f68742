import type { With } from "../context.ts";
import { served } from "./internal/answers.ts";
import { clustersBody } from "./internal/graph-bodies.ts";
import { ownerAnalytics } from "./internal/owner-read.ts";

/** The owner's clusters with their members (at most `maxMembers` listed per cluster), with the ETag. */
export async function listNetworkClusters(ctx: With<"network">, q: { maxMembers: number }) {
  const a = await ownerAnalytics(ctx, "sees the network clusters");
  return served(ctx.db, a.etag, `clusters|${q.maxMembers}`, () => clustersBody(a, { members: true, maxMembers: q.maxMembers }));
}
