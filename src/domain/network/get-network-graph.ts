import type { With } from "../context.ts";
import { served } from "./internal/answers.ts";
import { graphBody } from "./internal/graph-bodies.ts";
import { ownerAnalytics } from "./internal/owner-read.ts";

/** The owner's network for drawing (bounded to `limit` nodes), with its ETag. */
export async function getNetworkGraph(ctx: With<"network">, q: { limit: number }) {
  const a = await ownerAnalytics(ctx, "sees the network graph");
  return served(ctx.db, a.etag, `graph|${q.limit}`, () => graphBody(a, q.limit));
}
