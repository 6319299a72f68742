import type { With } from "../context.ts";
import { requireExtension } from "../internal/actors.ts";
import { grantedLayers } from "./internal/ext-read.ts";
import { healthAnswer } from "./internal/health-answer.ts";

/** `GET /ext/v1/health` (layers:read): the health of the granted layers only; nothing about the others. */
export function getExtHealth(ctx: With<"network">) {
  const actor = requireExtension(ctx, "layers:read");
  return healthAnswer(ctx, grantedLayers(actor));
}
