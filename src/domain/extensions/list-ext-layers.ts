import type { Ctx } from "../context.ts";
import { requireExtension } from "../internal/actors.ts";
import { extLayerView, listVisibleContacts, type ExtLayerView } from "./internal/visible-contacts.ts";
import type { ExtPageQuery } from "./list-ext-connections.ts";

/** GET /ext/v1/layers (layers:read): the layer and health band of each contact in the granted layers. */
export function listExtLayers(ctx: Ctx, query: ExtPageQuery): { layers: string[]; assignments: ExtLayerView[]; total: number } {
  const actor = requireExtension(ctx, "layers:read");
  const { rows, total } = listVisibleContacts(ctx.db, actor.layers, query.limit ?? 100, query.offset ?? 0);
  return { layers: actor.layers, assignments: rows.map(extLayerView), total };
}
