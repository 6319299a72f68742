import { desc, eq } from "drizzle-orm";
import { marketplaceVersions, REVIEW_STATES, type ReviewState } from "../../db/schema/index.ts";
import type { Ctx } from "../context.ts";
import { DomainError } from "../errors.ts";
import { requireOwner } from "../internal/actors.ts";
import { iso } from "../internal/iso.ts";

/** The owner's review queue: every submitted version (or those in one state), newest first, with its manifest. */
export function listSubmissions(ctx: Ctx, state?: string) {
  requireOwner(ctx, "reviews extensions");
  if (state !== undefined && !(REVIEW_STATES as readonly string[]).includes(state)) throw new DomainError("invalid_input", `state: one of ${REVIEW_STATES.join(", ")}`);
  const rows = ctx.db
    .select()
    .from(marketplaceVersions)
    .where(state === undefined ? undefined : eq(marketplaceVersions.reviewState, state as ReviewState))
    .orderBy(desc(marketplaceVersions.submittedAt))
    .limit(200)
    .all();
  return {
    submissions: rows.map((r) => ({
      extensionId: r.extensionId,
      version: r.version,
      manifestHash: r.manifestHash,
      reviewState: r.reviewState,
      reasons: r.reasonsJson ? (JSON.parse(r.reasonsJson) as Array<{ code: string; message: string }>) : [],
      manifest: JSON.parse(r.manifestJson) as Record<string, unknown>,
      submittedAt: iso(r.submittedAt),
      reviewedAt: iso(r.reviewedAt),
    })),
  };
}
