import { count, eq, notInArray } from "drizzle-orm";
import { transaction } from "../../db/client.ts";
import { profileSnapshots } from "../../db/schema/index.ts";
import { ProfileSnapshot } from "../../ink/index.ts";
import type { Ctx } from "../context.ts";
import { conflict } from "../internal/errors.ts";
import { recordEvent } from "../internal/events.ts";
import { profileSnapshotView, type ProfileSnapshotView } from "./internal/profile-snapshot-view.ts";
import { requireOwner } from "../internal/actors.ts";

export const PutProfileInput = ProfileSnapshot;
export const MAX_CUSTOM_SCOPES = 20;

/**
 * Upserts the snapshot of a scope. The body is INK's strict ProfileSnapshot (§15: headline ≤500,
 * skills and interests ≤50 × ≤100, openTo ≤20 × ≤100, optional availability), validated by the
 * route; `public` shows on the Agent Card at once.
 */
export function putProfileSnapshot(ctx: Ctx, scope: string, snapshot: ProfileSnapshot): ProfileSnapshotView {
  requireOwner(ctx, "writes profile snapshots");
  const now = ctx.clock.now();
  return transaction(ctx.db, (tx) => {
    const exists = tx.select({ scope: profileSnapshots.scope }).from(profileSnapshots).where(eq(profileSnapshots.scope, scope)).get();
    if (!exists && scope !== "public" && scope !== "connected") {
      const custom = tx.select({ n: count() }).from(profileSnapshots).where(notInArray(profileSnapshots.scope, ["public", "connected"])).get()?.n ?? 0;
      if (custom >= MAX_CUSTOM_SCOPES) throw conflict(`at most ${MAX_CUSTOM_SCOPES} custom scopes; delete one first`);
    }
    const row = { scope, json: JSON.stringify(snapshot), updatedAt: now };
    tx.insert(profileSnapshots).values(row).onConflictDoUpdate({ target: profileSnapshots.scope, set: { json: row.json, updatedAt: now } }).run();
    recordEvent(tx, "profile.updated", now, { subjectId: scope });
    return profileSnapshotView(row);
  });
}
