import type { With } from "../../context.ts";
import { DUNBAR_LAYERS, type DunbarLayer } from "../../relationships/names.ts";
import { readFacts } from "./analytics.ts";
import { served } from "./answers.ts";
import { dayOf, healthBody } from "./health-bodies.ts";

/** Health of `layers` from today's facts (no graph needed), keyed by the facts, the layers and the day. */
export function healthAnswer(ctx: With<"network">, layers: ReadonlySet<DunbarLayer>) {
  const facts = readFacts(ctx);
  const now = ctx.clock.now();
  return served(ctx.db, `health|${facts.key}|${DUNBAR_LAYERS.filter((l) => layers.has(l)).join(",")}`, String(dayOf(now)), () => healthBody(facts.map, layers, now));
}
