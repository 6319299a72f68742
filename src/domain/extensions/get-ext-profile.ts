import type { Ctx } from "../context.ts";
import { requireExtension } from "../internal/actors.ts";
import { ownProfileSnapshot, type ProfileSnapshot } from "../profile/own-profile-snapshot.ts";

/** GET /ext/v1/profile (profile:read): the owner's public profile snapshot, what strangers see. */
export function getExtProfile(ctx: Ctx): { scope: "public"; snapshot: ProfileSnapshot } {
  requireExtension(ctx, "profile:read");
  return { scope: "public", snapshot: ownProfileSnapshot(ctx.db, "public") };
}
