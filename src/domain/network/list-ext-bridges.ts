import type { With } from "../context.ts";
import { requireExtension } from "../internal/actors.ts";
import { readAnalytics } from "./internal/analytics.ts";
import { served } from "./internal/answers.ts";
import { grantedLayers } from "./internal/ext-read.ts";
import { bridgesBody } from "./internal/graph-bodies.ts";

/** `GET /ext/v1/bridges` (graph:read:bridges): visible sole connectors and cuts, computed on the visible graph. */
export async function listExtBridges(ctx: With<"network">) {
  const actor = requireExtension(ctx, "graph:read:bridges");
  const a = await readAnalytics(ctx, grantedLayers(actor));
  return served(ctx.db, a.etag, "bridges", () => bridgesBody(a));
}
