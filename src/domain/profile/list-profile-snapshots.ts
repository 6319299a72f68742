import { and, asc, gt, type SQL } from "drizzle-orm";
import * as v from "valibot";
import { profileSnapshots } from "../../db/schema/index.ts";
import type { Ctx } from "../context.ts";
import { DEFAULT_LIMIT, decodeCursor, PageQuery, pageOf, type Page } from "../internal/pagination.ts";
import { requireOwner } from "../internal/actors.ts";
import { profileSnapshotView, type ProfileSnapshotView } from "./internal/profile-snapshot-view.ts";

export const ProfilesQuery = v.object({ ...PageQuery.entries });
export type ProfilesQuery = v.InferOutput<typeof ProfilesQuery>;

/** `public`, `connected`, or a custom scope name. */
export const SCOPE_PATTERN = /^[a-z][a-z0-9_-]{0,31}$/;
export const ProfileScopeParam = v.object({
  scope: v.pipe(v.string(), v.regex(SCOPE_PATTERN, "scope: public, connected, or a custom name of lower-case letters, digits, _ and - (1–32, starting with a letter)"), v.description("public, connected, or a custom scope")),
});

/** The stored snapshots, by scope name. */
export function listProfileSnapshots(ctx: Ctx, query: ProfilesQuery): Page<ProfileSnapshotView> {
  requireOwner(ctx, "reads profile snapshots");
  const filters: SQL[] = [];
  const cursor = decodeCursor(query.cursor);
  if (cursor) filters.push(gt(profileSnapshots.scope, cursor.id));
  const limit = query.limit ?? DEFAULT_LIMIT;
  const rows = ctx.db.select().from(profileSnapshots).where(and(...filters)).orderBy(asc(profileSnapshots.scope)).limit(limit + 1).all();
  return pageOf(rows, limit, (r) => ({ at: 0, id: r.scope }), profileSnapshotView);
}

