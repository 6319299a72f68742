import { and, eq } from "drizzle-orm";
import { contactRelations } from "../../db/schema/index.ts";
import type { Ctx } from "../context.ts";
import { requireOwner } from "../internal/actors.ts";
import { notFound } from "../internal/errors.ts";

/** `DELETE /api/svc/network/relations/:contactA/:contactB`: the stated or imported tie between two contacts goes (either order); 404 when there is none. */
export function removeContactRelation(ctx: Ctx, contactA: string, contactB: string): void {
  requireOwner(ctx, "removes relations between contacts");
  const [a, b] = contactA < contactB ? [contactA, contactB] : [contactB, contactA];
  const gone = ctx.db.delete(contactRelations).where(and(eq(contactRelations.aId, a), eq(contactRelations.bId, b))).returning({ id: contactRelations.id }).all();
  if (gone.length === 0) throw notFound("relation");
}
