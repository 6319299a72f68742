import { eq, min } from "drizzle-orm";
import { outbox } from "../../db/schema/index.ts";
import type { Ctx } from "../context.ts";

/** When the worker should look again (the earliest scheduled retry), or null when nothing waits. */
export function nextDeliveryAt(ctx: Pick<Ctx, "db">): number | null {
  const row = ctx.db.select({ at: min(outbox.nextAttemptAt) }).from(outbox).where(eq(outbox.status, "queued")).get();
  return row?.at ?? null;
}
