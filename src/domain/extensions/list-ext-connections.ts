import * as v from "valibot";
import type { Ctx } from "../context.ts";
import { requireExtension } from "../internal/actors.ts";
import { wireDoc } from "../internal/wire-doc.ts";
import { extContactView, listVisibleContacts, type ExtContactView } from "./internal/visible-contacts.ts";

const integer = (name: string, min: number, max: number, fallback: number) =>
  v.optional(
    v.pipe(
      v.string(),
      v.regex(/^\d{1,10}$/, `${name}: an integer from ${min} to ${max}`),
      v.transform(Number),
      v.minValue(min, `${name}: at least ${min}`),
      v.maxValue(max, `${name}: at most ${max}`),
      wireDoc({ type: "integer", minimum: min, maximum: max, default: fallback }),
    ),
  );

/** `limit` (1–200, default 100) and `offset` of the extension API's contact lists. */
export const ExtPageQuery = v.object({ limit: integer("limit", 1, 200, 100), offset: integer("offset", 0, 1_000_000, 0) });
export type ExtPageQuery = v.InferOutput<typeof ExtPageQuery>;

/** SPEC Limits: /ext/v1/audit `limit` default 50, maximum 200, with `offset`. */
export const AuditPageQuery = v.object({ limit: integer("limit", 1, 200, 50), offset: integer("offset", 0, 1_000_000_000, 0) });
export type AuditPageQuery = v.InferOutput<typeof AuditPageQuery>;

/** GET /ext/v1/connections (connections:list): contacts in the granted layers, by id; `total` counts only those. */
export function listExtConnections(ctx: Ctx, query: ExtPageQuery): { connections: ExtContactView[]; total: number } {
  const actor = requireExtension(ctx, "connections:list");
  const { rows, total } = listVisibleContacts(ctx.db, actor.layers, query.limit ?? 100, query.offset ?? 0);
  return { connections: rows.map(extContactView), total };
}
