import { and, eq } from "drizzle-orm";
import type { Db, Tx } from "../../../db/client.ts";
import { marketplaceExtensions } from "../../../db/schema/index.ts";

/**
 * Whether this node's marketplace has suspended the extension (docs/decisions/marketplace.md):
 * derived from the listing at each check rather than copied into every installation, so lifting
 * the suspension restores the installations with nothing to undo.
 */
export function isSuspended(db: Db | Tx, extensionId: string): boolean {
  return (
    db
      .select({ id: marketplaceExtensions.extensionId })
      .from(marketplaceExtensions)
      .where(and(eq(marketplaceExtensions.extensionId, extensionId), eq(marketplaceExtensions.listingState, "suspended")))
      .get() !== undefined
  );
}

export const SUSPENDED_MESSAGE = "the extension is suspended by this node's marketplace; its requests are refused until the suspension is lifted";
