import { eq } from "drizzle-orm";
import * as v from "valibot";
import { extensionInstallations, marketplaceExtensions, marketplaceReviews } from "../../db/schema/index.ts";
import { cachedOwnIdentity } from "../agent/cached-own-identity.ts";
import type { With } from "../context.ts";
import { DomainError } from "../errors.ts";
import { type ReviewStats, reviewStats } from "./internal/views.ts";

export const RatingInput = v.strictObject({
  rating: v.pipe(v.number("rating: an integer from 1 to 5"), v.integer("rating: an integer from 1 to 5"), v.minValue(1, "rating: at least 1"), v.maxValue(5, "rating: at most 5")),
  comment: v.optional(v.pipe(v.string(), v.maxLength(1000, "comment: at most 1000 characters"), v.check((s) => !/[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/.test(s), "comment: no control characters"))),
});
export type RatingInput = v.InferOutput<typeof RatingInput>;

/**
 * One vote per agent (notes/EXTENSIONS.md §1.6): the owner rates as this node's own agent, and only
 * an extension they have installed here (403 `not_installed`); another node's agent rates through
 * a request its key signed (the `agent` actor the INK signature plugin makes), so nobody posts as
 * someone else. A second rating by the same agent is 409 `already_reviewed`.
 */
export function rateExtension(ctx: With<"node">, extensionId: string, input: RatingInput): { extensionId: string; reviewer: string; rating: number; reviewStats: ReviewStats } {
  let reviewer: string;
  if (ctx.actor.kind === "agent") reviewer = ctx.actor.agentId;
  else if (ctx.actor.kind === "owner") {
    const own = cachedOwnIdentity(ctx.db, ctx.node);
    if (!own) throw new DomainError("conflict", "this node has no agent yet (POST /api/svc creates it)");
    const installed = ctx.db.select({ id: extensionInstallations.id }).from(extensionInstallations).where(eq(extensionInstallations.extensionId, extensionId)).get();
    if (!installed) throw new DomainError("forbidden", `rate ${extensionId} after installing it`, { reason: "not_installed" });
    reviewer = own.agentId;
  } else throw new DomainError("forbidden", "only the owner or a verified agent rates extensions");
  const listed = ctx.db.select({ latestVersion: marketplaceExtensions.latestVersion }).from(marketplaceExtensions).where(eq(marketplaceExtensions.extensionId, extensionId)).get();
  if (!listed || listed.latestVersion === null) throw new DomainError("not_found", `no extension ${extensionId} in this marketplace`);
  const inserted = ctx.db
    .insert(marketplaceReviews)
    .values({ extensionId, reviewerAgentId: reviewer, rating: input.rating, comment: input.comment ?? null, createdAt: ctx.clock.now() })
    .onConflictDoNothing()
    .returning({ rating: marketplaceReviews.rating })
    .all();
  if (inserted.length === 0) throw new DomainError("conflict", `${reviewer} has already rated ${extensionId}`, { reason: "already_reviewed" });
  return { extensionId, reviewer, rating: input.rating, reviewStats: reviewStats(ctx.db, extensionId) };
}
