import type { With } from "../context.ts";
import { requireOwner } from "../internal/actors.ts";
import { refreshSnapshot, type RefreshOutcome } from "./internal/refresh.ts";

export type { RefreshOutcome } from "./internal/refresh.ts";

/**
 * The network analytics job's step (and the owner's "recompute now"): recomputes the snapshot when
 * the graph changed and the debounce allows, or at once with `force` (internal/refresh.ts).
 */
export async function refreshNetwork(ctx: With<"network">, opts: { force?: boolean } = {}): Promise<RefreshOutcome> {
  requireOwner(ctx, "refreshes the network analytics");
  return refreshSnapshot(ctx, opts);
}
