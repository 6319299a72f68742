import { and, eq, inArray } from "drizzle-orm";
import * as v from "valibot";
import { transaction } from "../../db/client.ts";
import { connections, contactRelations } from "../../db/schema/index.ts";
import type { Ctx } from "../context.ts";
import { requireOwner } from "../internal/actors.ts";
import { invalidInput, notFound } from "../internal/errors.ts";
import { relationView } from "./internal/relation-view.ts";

const ContactId = v.pipe(v.string(), v.minLength(1, "a contact id"), v.maxLength(256));
export const AddRelationInput = v.strictObject({
  contactA: ContactId,
  contactB: ContactId,
  weight: v.optional(v.pipe(v.number(), v.minValue(0.05, "weight: 0.05 to 5"), v.maxValue(5, "weight: 0.05 to 5")), 1),
});
export type AddRelationInput = v.InferOutput<typeof AddRelationInput>;

/**
 * `POST /api/svc/network/relations`: the owner states that two contacts know each other, a tie of
 * the contact graph that does not decay (docs/decisions/contact-graph.md). Stating it again
 * replaces its weight. Both must be contacts (connected or known); a contact and itself is 400.
 */
export function addContactRelation(ctx: Ctx, input: AddRelationInput): { created: boolean; relation: ReturnType<typeof relationView> } {
  requireOwner(ctx, "states relations between contacts");
  if (input.contactA === input.contactB) throw invalidInput("a relation needs two different contacts");
  const [a, b] = input.contactA < input.contactB ? [input.contactA, input.contactB] : [input.contactB, input.contactA];
  const found = ctx.db.select({ id: connections.id }).from(connections).where(and(inArray(connections.id, [a, b]), inArray(connections.status, ["connected", "contact"]))).all();
  if (found.length !== 2) throw notFound("contact");
  const now = ctx.clock.now();
  return transaction(ctx.db, (tx) => {
    const existing = tx.select().from(contactRelations).where(and(eq(contactRelations.aId, a), eq(contactRelations.bId, b))).get();
    if (existing) {
      const row = tx.update(contactRelations).set({ weight: input.weight, source: "owner" }).where(eq(contactRelations.id, existing.id)).returning().get()!;
      return { created: false, relation: relationView(row) };
    }
    const row = tx.insert(contactRelations).values({ id: ctx.ids.next(), aId: a, bId: b, source: "owner", weight: input.weight, createdAt: now }).returning().get();
    return { created: true, relation: relationView(row) };
  });
}
