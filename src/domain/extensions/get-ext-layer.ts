import type { Ctx } from "../context.ts";
import { requireExtension } from "../internal/actors.ts";
import { notFound } from "../internal/errors.ts";
import { extLayerView, findVisibleContact, type ExtLayerView } from "./internal/visible-contacts.ts";

/** GET /ext/v1/layers/:contactId (layers:read): 404 when missing or outside the granted layers. */
export function getExtLayer(ctx: Ctx, contactId: string): ExtLayerView {
  const actor = requireExtension(ctx, "layers:read");
  const row = findVisibleContact(ctx.db, actor.layers, contactId);
  if (!row) throw notFound("contact");
  return extLayerView(row);
}
