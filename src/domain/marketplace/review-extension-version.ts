import { and, eq } from "drizzle-orm";
import * as v from "valibot";
import { transaction } from "../../db/client.ts";
import { marketplaceVersions } from "../../db/schema/index.ts";
import type { Ctx } from "../context.ts";
import { DomainError } from "../errors.ts";
import { requireOwner } from "../internal/actors.ts";
import { approveVersion } from "./internal/approve-version.ts";

const Reason = v.strictObject({
  code: v.pipe(v.string(), v.regex(/^[a-z][a-z0-9_]{1,63}$/, "reasons[].code: snake_case, 2-64 characters")),
  message: v.pipe(v.string(), v.minLength(1), v.maxLength(500)),
});

export const ReviewDecisionInput = v.variant("decision", [
  v.strictObject({ decision: v.literal("approve") }),
  v.strictObject({ decision: v.literal("reject"), reasons: v.pipe(v.array(Reason), v.minLength(1, "reasons: a rejection says why"), v.maxLength(20)) }),
  v.strictObject({ decision: v.literal("start") }),
  v.strictObject({ decision: v.literal("withdraw") }),
]);
export type ReviewDecisionInput = v.InferOutput<typeof ReviewDecisionInput>;

/** Which review states each decision may leave from (notes/EXTENSIONS.md §1.6). */
const FROM: Record<ReviewDecisionInput["decision"], readonly string[]> = {
  start: ["submitted"],
  approve: ["submitted", "in_review"],
  reject: ["submitted", "in_review"],
  withdraw: ["submitted", "in_review"],
};

const VERB: Record<ReviewDecisionInput["decision"], string> = { start: "taken into review", approve: "approved", reject: "rejected", withdraw: "withdrawn" };

/**
 * The reviewer's step on `extensionId@version` (the owner, on this node): `start` takes a
 * submission into `in_review`; `approve` publishes it; `reject` records `reasons[]{code, message}`;
 * `withdraw` (the publisher's, who is the owner here) ends a version that is not yet decided.
 * Any other move is 409 `invalid_transition`, naming the current state.
 */
export function reviewExtensionVersion(ctx: Ctx, extensionId: string, version: string, input: ReviewDecisionInput): { extensionId: string; version: string; reviewState: string; reasons?: Array<{ code: string; message: string }> } {
  requireOwner(ctx, "reviews extensions");
  const now = ctx.clock.now();
  return transaction(ctx.db, (tx) => {
    const where = and(eq(marketplaceVersions.extensionId, extensionId), eq(marketplaceVersions.version, version));
    const row = tx.select({ reviewState: marketplaceVersions.reviewState }).from(marketplaceVersions).where(where).get();
    if (!row) throw new DomainError("not_found", `no submission ${extensionId}@${version}`);
    if (!FROM[input.decision].includes(row.reviewState)) throw new DomainError("conflict", `${extensionId}@${version} is ${row.reviewState}: it cannot be ${VERB[input.decision]}`, { reason: "invalid_transition", fields: { reviewState: row.reviewState } });
    if (input.decision === "approve") {
      approveVersion(tx, extensionId, version, now);
      return { extensionId, version, reviewState: "approved" };
    }
    if (input.decision === "start" || input.decision === "withdraw") {
      const next = input.decision === "start" ? "in_review" : "withdrawn";
      tx.update(marketplaceVersions).set({ reviewState: next }).where(where).run();
      return { extensionId, version, reviewState: next };
    }
    tx.update(marketplaceVersions).set({ reviewState: "rejected", reviewedAt: now, reasonsJson: JSON.stringify(input.reasons) }).where(where).run();
    return { extensionId, version, reviewState: "rejected", reasons: input.reasons };
  });
}
