import type { ExtensionActor } from "../../context.ts";
import { DUNBAR_LAYERS, type DunbarLayer } from "../../relationships/names.ts";

/** The installation's granted layers, as the analytics read them (unknown names grant nothing). */
export function grantedLayers(actor: ExtensionActor): Set<DunbarLayer> {
  return new Set(DUNBAR_LAYERS.filter((l) => actor.layers.includes(l)));
}
