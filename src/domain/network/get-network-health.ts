import type { With } from "../context.ts";
import { requireOwner } from "../internal/actors.ts";
import { healthAnswer } from "./internal/health-answer.ts";
import { ALL_LAYERS } from "./internal/owner-read.ts";

/** The owner's network health over every layer (from today's layers and bands; needs no graph). */
export function getNetworkHealth(ctx: With<"network">) {
  requireOwner(ctx, "sees the network health");
  return healthAnswer(ctx, ALL_LAYERS);
}
