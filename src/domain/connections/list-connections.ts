import { and, desc, eq, lt, or, sql, type SQL } from "drizzle-orm";
import * as v from "valibot";
import { CONNECTION_STATUSES, connections, DUNBAR_LAYERS, HEALTH_BANDS } from "../../db/schema/index.ts";
import type { Ctx } from "../context.ts";
import { connectionView, type ConnectionView } from "./internal/connection-view.ts";
import { DEFAULT_LIMIT, decodeCursor, PageQuery, pageOf, type Page } from "../internal/pagination.ts";
import { requireOwner } from "../internal/actors.ts";

export const ConnectionQuery = v.object({
  ...PageQuery.entries,
  status: v.optional(v.picklist(CONNECTION_STATUSES, `status: one of ${CONNECTION_STATUSES.join(", ")}`)),
  layer: v.optional(v.picklist(DUNBAR_LAYERS, `layer: one of ${DUNBAR_LAYERS.join(", ")}`)),
  health: v.optional(v.picklist(HEALTH_BANDS, `health: one of ${HEALTH_BANDS.join(", ")}`)),
});
export type ConnectionQuery = v.InferOutput<typeof ConnectionQuery>;

/** Connections, most recently changed first. */
export function listConnections(ctx: Ctx, query: ConnectionQuery): Page<ConnectionView> {
  requireOwner(ctx, "sees connections");
  const filters: SQL[] = [];
  if (query.status) filters.push(eq(connections.status, query.status));
  if (query.layer) filters.push(sql`coalesce(${connections.layerOverride}, ${connections.layer}) = ${query.layer}`);
  if (query.health) filters.push(eq(connections.health, query.health));
  const cursor = decodeCursor(query.cursor);
  if (cursor) filters.push(or(lt(connections.updatedAt, cursor.at), and(eq(connections.updatedAt, cursor.at), lt(connections.id, cursor.id)))!);
  const limit = query.limit ?? DEFAULT_LIMIT;
  const rows = ctx.db.select().from(connections).where(and(...filters)).orderBy(desc(connections.updatedAt), desc(connections.id)).limit(limit + 1).all();
  return pageOf(rows, limit, (r) => ({ at: r.updatedAt, id: r.id }), connectionView);
}

