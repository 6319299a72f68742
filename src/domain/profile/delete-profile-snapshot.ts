import { eq } from "drizzle-orm";
import { transaction } from "../../db/client.ts";
import { profileSnapshots } from "../../db/schema/index.ts";
import type { Ctx } from "../context.ts";
import { notFound } from "../internal/errors.ts";
import { recordEvent } from "../internal/events.ts";
import { requireOwner } from "../internal/actors.ts";

/** Deletes a scope's snapshot; that scope falls back to `public` (and `public` to the minimal default). */
export function deleteProfileSnapshot(ctx: Ctx, scope: string): void {
  requireOwner(ctx, "writes profile snapshots");
  const now = ctx.clock.now();
  transaction(ctx.db, (tx) => {
    const gone = tx.delete(profileSnapshots).where(eq(profileSnapshots.scope, scope)).returning({ scope: profileSnapshots.scope }).get();
    if (!gone) throw notFound("profile snapshot");
    recordEvent(tx, "profile.deleted", now, { subjectId: scope });
  });
}
