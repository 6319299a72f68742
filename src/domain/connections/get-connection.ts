import { eq } from "drizzle-orm";
import { connections } from "../../db/schema/index.ts";
import type { Ctx } from "../context.ts";
import { notFound } from "../internal/errors.ts";
import { connectionView, type ConnectionView } from "./internal/connection-view.ts";
import { requireOwner } from "../internal/actors.ts";

export function getConnection(ctx: Ctx, id: string): ConnectionView {
  requireOwner(ctx, "sees connections");
  const row = ctx.db.select().from(connections).where(eq(connections.id, id)).get();
  if (!row) throw notFound("connection");
  return connectionView(row);
}
