import { eq } from "drizzle-orm";
import * as v from "valibot";
import { transaction } from "../../db/client.ts";
import { marketplaceExtensions } from "../../db/schema/index.ts";
import { recordSuspensionChange } from "../extensions/record-suspension-change.ts";
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
 * existing installs keep working), `suspended` (no new installs, and the existing ones refused:
 * 401 `installation_inactive`, each told by `installation.updated`; lifting it restores them).
 * Listing needs an approved version: 409 `not_approved`.
 */
export function setListingState(ctx: Ctx, extensionId: string, input: ListingStateInput): { extensionId: string; listingState: string } {
  requireOwner(ctx, "lists extensions");
  const row = ctx.db.select({ latestVersion: marketplaceExtensions.latestVersion, listingState: marketplaceExtensions.listingState }).from(marketplaceExtensions).where(eq(marketplaceExtensions.extensionId, extensionId)).get();
  if (!row) throw new DomainError("not_found", `no extension ${extensionId} in this marketplace`);
  if (row.latestVersion === null && (input.listingState === "listed" || input.listingState === "unlisted")) throw new DomainError("conflict", `${extensionId} has no approved version yet`, { reason: "not_approved" });
  const now = ctx.clock.now();
  transaction(ctx.db, (tx) => {
    tx.update(marketplaceExtensions).set({ listingState: input.listingState, updatedAt: now }).where(eq(marketplaceExtensions.extensionId, extensionId)).run();
    const suspended = input.listingState === "suspended";
    if (suspended !== (row.listingState === "suspended")) recordSuspensionChange(tx, extensionId, suspended, now);
  });
  return { extensionId, listingState: input.listingState };
}
