import type { Ctx } from "../context.ts";
import { requireExtension } from "../internal/actors.ts";
import { notFound } from "../internal/errors.ts";
import { extContactView, findVisibleContact, type ExtContactView } from "./internal/visible-contacts.ts";

/** GET /ext/v1/connections/:contactId (connections:list): 404 when missing or outside the granted layers, the same answer. */
export function getExtConnection(ctx: Ctx, contactId: string): ExtContactView {
  const actor = requireExtension(ctx, "connections:list");
  const row = findVisibleContact(ctx.db, actor.layers, contactId);
  if (!row) throw notFound("contact");
  return extContactView(row);
}
