import { DUNBAR_LAYERS } from "../relationships/names.ts";

/**
 * The key of one audience of the network analytics: its granted layers, closest first,
 * comma-joined ("" for none). Installations with the same layers see the same filtered analysis,
 * so the graph events say per key what changed (domain/extensions' feed picks the caller's).
 */
export function audienceKey(layers: readonly string[]): string {
  return DUNBAR_LAYERS.filter((l) => layers.includes(l)).join(",");
}
