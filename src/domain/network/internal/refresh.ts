import { sql } from "drizzle-orm";
import { parseStringList } from "../../internal/string-list.ts";
import { audienceKey } from "../audience-key.ts";
import type { With } from "../../context.ts";
import { graphChangeKey } from "./change-key.ts";
import { readSnapshotMeta, readSnapshotStructure } from "./snapshot-store.ts";
import { MAX_VIEWS, networkState, viewKey, type NetworkState } from "./state.ts";
import { ALGO_VERSION, type NetworkStructure } from "./structure.ts";

export type RefreshOutcome = "idle" | "fresh" | "waiting" | "recomputed" | "unchanged";

/**
 * Keeps the network snapshot in step with the database, debounced (notes §2.6): after a change it
 * waits until nothing changed for `debounceMs` (or the change began `maxWaitMs` ago), then runs the
 * analysis off the event loop (`ctx.network.runner`), and stores it with its events in one
 * transaction, or only notes the check when the graph's content hash is the same. Does nothing
 * until analytics were asked for once (start-up costs nothing on a node that never uses them).
 * `force` skips the wait (the first request, when no snapshot exists). Concurrent calls share one run.
 */
export async function refreshSnapshot(ctx: With<"network">, opts: { force?: boolean } = {}): Promise<RefreshOutcome> {
  const s = networkState(ctx.db);
  if (s.meta === undefined) {
    s.meta = readSnapshotMeta(ctx.db);
    if (s.meta) s.wanted = true;
  }
  if (opts.force) s.wanted = true;
  if (!s.wanted) return "idle";
  if (s.computing) return (await s.computing, "recomputed");
  const now = ctx.clock.now();
  const key = graphChangeKey(ctx.db);
  if (key !== s.seenKey) {
    s.seenKey = key;
    s.lastChangeAt = now;
  }
  const meta = s.meta;
  const due = !meta || meta.algoVersion !== ALGO_VERSION || meta.changeKey !== key || now - meta.computedAt >= ctx.network.refreshMs;
  if (!due) {
    s.dirtySince = null;
    return "fresh";
  }
  s.dirtySince ??= now;
  const settled = now - s.lastChangeAt >= ctx.network.debounceMs || now - s.dirtySince >= ctx.network.maxWaitMs;
  if (meta && meta.algoVersion === ALGO_VERSION && !settled && !opts.force) return "waiting";
  const run = recompute(ctx, s, key, now);
  s.computing = run;
  try {
    return await run;
  } finally {
    s.computing = null;
  }
}

async function recompute(ctx: With<"network">, s: NetworkState, key: string, now: number): Promise<"recomputed" | "unchanged"> {
  const audiences = [...new Set(ctx.db.all<{ layers: string }>(sql`SELECT layers_json AS layers FROM extension_installations WHERE status <> 'uninstalled'`).map((r) => audienceKey(parseStringList(r.layers))))];
  const previous = s.meta && s.meta.algoVersion === ALGO_VERSION ? { id: s.meta.id, graphVersion: s.meta.graphVersion } : null;
  // the Worker reads, analyses and stores (snapshot and events in one transaction); here only the result is kept
  const result = await ctx.network.runner.compute({ now, changeKey: key, previous, audiences });
  s.dirtySince = null;
  s.meta = result.meta;
  if (result.outcome === "recomputed") {
    s.structure = result.structure;
    s.views.clear();
    // the views the recompute built for each installed audience (analytics.ts files them the same way)
    for (const [audience, view] of result.views.byAudience.slice(0, MAX_VIEWS)) s.views.set(viewKey(result.meta.id, result.views.factsKey, audience), view);
  }
  return result.outcome;
}

/** The snapshot's analysis, parsed from its row the first time something needs it. */
function currentStructure(ctx: With<"network">, s: NetworkState): NetworkStructure | null {
  if (!s.structure && s.meta) s.structure = readSnapshotStructure(ctx.db, s.meta.id);
  return s.structure;
}
