import type { With } from "../context.ts";
import { served } from "./internal/answers.ts";
import { bridgesBody } from "./internal/graph-bodies.ts";
import { ownerAnalytics } from "./internal/owner-read.ts";

/** The owner's sole connectors and articulation points, bridge risk first, with the ETag. */
export async function listNetworkBridges(ctx: With<"network">) {
  const a = await ownerAnalytics(ctx, "sees the network bridges");
  return served(ctx.db, a.etag, "bridges", () => bridgesBody(a));
}
