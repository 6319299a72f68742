import type { With } from "../context.ts";
import { clustersBody } from "./internal/graph-bodies.ts";
import { ownerAnalytics } from "./internal/owner-read.ts";

/** The owner's clusters with their members (at most `maxMembers` listed per cluster), with the ETag. */
export async function listNetworkClusters(ctx: With<"network">, q: { maxMembers: number }) {
  const a = await ownerAnalytics(ctx, "sees the network clusters");
  return { etag: a.etag, body: clustersBody(a, { members: true, maxMembers: q.maxMembers }) };
}
