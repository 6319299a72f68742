import { profileSnapshots } from "../../../db/schema/index.ts";
import type { ProfileSnapshot } from "../own-profile-snapshot.ts";

export interface ProfileSnapshotView {
  scope: string;
  snapshot: ProfileSnapshot;
  updatedAt: string;
}

export function profileSnapshotView(row: typeof profileSnapshots.$inferSelect): ProfileSnapshotView {
  return { scope: row.scope, snapshot: JSON.parse(row.json) as ProfileSnapshot, updatedAt: new Date(row.updatedAt).toISOString() };
}
