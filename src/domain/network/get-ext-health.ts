import type { With } from "../context.ts";
import { requireExtension } from "../internal/actors.ts";
import { readFacts } from "./internal/analytics.ts";
import { grantedLayers } from "./internal/ext-read.ts";
import { healthBody } from "./internal/health-bodies.ts";

/** `GET /ext/v1/health` (layers:read): the health of the granted layers only; nothing about the others. */
export function getExtHealth(ctx: With<"network">) {
  const actor = requireExtension(ctx, "layers:read");
  const { etag, ...body } = healthBody(readFacts(ctx).map, grantedLayers(actor), ctx.clock.now());
  return { etag, body };
}
