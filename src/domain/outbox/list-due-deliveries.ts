import { asc, eq, lte, min } from "drizzle-orm";
import { outbox } from "../../db/schema/index.ts";
import type { Ctx } from "../context.ts";
import { type OutboxRow } from "./deliver-one.ts";

/**
 * Due items, oldest first, at most one per peer: deliveries to one peer stay in order (a
 * connection_request reaches the peer before what follows it), while peers do not wait on each other.
 */
export function listDueDeliveries(ctx: Pick<Ctx, "db" | "clock">, limit: number): OutboxRow[] {
  const heads = ctx.db
    .select({ id: min(outbox.id).as("head") })
    .from(outbox)
    .where(eq(outbox.status, "queued"))
    .groupBy(outbox.peerPrincipal)
    .as("heads");
  return ctx.db
    .select({ o: outbox })
    .from(outbox)
    .innerJoin(heads, eq(outbox.id, heads.id))
    .where(lte(outbox.nextAttemptAt, ctx.clock.now()))
    .orderBy(asc(outbox.nextAttemptAt))
    .limit(limit)
    .all()
    .map((r) => r.o);
}
