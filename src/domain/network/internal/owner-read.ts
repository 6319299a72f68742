import type { With } from "../../context.ts";
import { requireOwner } from "../../internal/actors.ts";
import { DUNBAR_LAYERS } from "../../relationships/names.ts";
import { readAnalytics, type Analytics } from "./analytics.ts";

/** Every layer: the owner sees the analytics unfiltered. */
export const ALL_LAYERS = new Set(DUNBAR_LAYERS);

/** The owner's read of the analytics (every layer visible). */
export function ownerAnalytics(ctx: With<"network">, what: string): Promise<Analytics> {
  requireOwner(ctx, what);
  return readAnalytics(ctx, ALL_LAYERS);
}
