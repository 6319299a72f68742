import type { With } from "../context.ts";
import { requireExtension } from "../internal/actors.ts";
import { readAnalytics } from "./internal/analytics.ts";
import { served } from "./internal/answers.ts";
import { grantedLayers } from "./internal/ext-read.ts";
import { dayOf, decayingBody } from "./internal/health-bodies.ts";

/**
 * `GET /ext/v1/decaying` (layers:read): slipping contacts of the granted layers, most important
 * first; "is a bridge" is judged on the visible graph. Names only with connections:list (layers:read
 * alone shows ids, layers and bands, as /layers does).
 */
export async function listExtDecaying(ctx: With<"network">, q: { limit: number }) {
  const actor = requireExtension(ctx, "layers:read");
  const a = await readAnalytics(ctx, grantedLayers(actor));
  const names = actor.permissions.includes("connections:list");
  const now = ctx.clock.now();
  return served(ctx.db, a.etag, `decaying|${names}|${q.limit}|${dayOf(now)}`, () => decayingBody(a, now, q.limit, { names }));
}
