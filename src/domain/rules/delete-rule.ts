import { eq } from "drizzle-orm";
import { transaction } from "../../db/client.ts";
import { rules } from "../../db/schema/index.ts";
import type { Ctx } from "../context.ts";
import { notFound } from "../internal/errors.ts";
import { recordEvent } from "../internal/events.ts";
import { requireOwner } from "../internal/actors.ts";

/** Deletes a rule; what it already did stays recorded in its runs. */
export function deleteRule(ctx: Ctx, id: string): void {
  requireOwner(ctx, "writes rules");
  const now = ctx.clock.now();
  transaction(ctx.db, (tx) => {
    const gone = tx.delete(rules).where(eq(rules.id, id)).returning({ id: rules.id }).get();
    if (!gone) throw notFound("rule");
    recordEvent(tx, "rule.deleted", now, { subjectId: id });
  });
}
