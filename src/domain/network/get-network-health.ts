import type { With } from "../context.ts";
import { requireOwner } from "../internal/actors.ts";
import { readFacts } from "./internal/analytics.ts";
import { healthBody } from "./internal/health-bodies.ts";
import { ALL_LAYERS } from "./internal/owner-read.ts";

/** The owner's network health over every layer (from today's layers and bands; needs no graph). */
export function getNetworkHealth(ctx: With<"network">) {
  requireOwner(ctx, "sees the network health");
  const { etag, ...body } = healthBody(readFacts(ctx).map, ALL_LAYERS, ctx.clock.now());
  return { etag, body };
}
