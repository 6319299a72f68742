import { eq } from "drizzle-orm";
import * as v from "valibot";
import { marketplaceExtensions } from "../../db/schema/index.ts";
import type { Ctx } from "../context.ts";
import { DomainError } from "../errors.ts";
import { requireOwner } from "../internal/actors.ts";

export const ListingStateInput = v.strictObject({
  listingState: v.picklist(["listed", "unlisted", "delisted", "suspended"], "listingState: listed, unlisted, delisted or suspended"),
});
export type ListingStateInput = v.InferOutput<typeof ListingStateInput>;

/**
 * The owner (publisher and operator on this node) sets an extension's listing (notes §1.6):
 * `listed` (searchable), `unlisted` (installable by id or URL only), `delisted` (no new installs;
 * existing installs keep working), `suspended` (no new installs). Listing needs an approved
 * version: 409 `not_approved`.
 */
export function setListingState(ctx: Ctx, extensionId: string, input: ListingStateInput): { extensionId: string; listingState: string } {
  requireOwner(ctx, "lists extensions");
  const row = ctx.db.select({ latestVersion: marketplaceExtensions.latestVersion }).from(marketplaceExtensions).where(eq(marketplaceExtensions.extensionId, extensionId)).get();
  if (!row) throw new DomainError("not_found", `no extension ${extensionId} in this marketplace`);
  if (row.latestVersion === null && (input.listingState === "listed" || input.listingState === "unlisted")) throw new DomainError("conflict", `${extensionId} has no approved version yet`, { reason: "not_approved" });
  ctx.db.update(marketplaceExtensions).set({ listingState: input.listingState, updatedAt: ctx.clock.now() }).where(eq(marketplaceExtensions.extensionId, extensionId)).run();
  return { extensionId, listingState: input.listingState };
}
