import * as v from "valibot";
import { settings } from "../../db/schema/index.ts";
import type { Ctx } from "../context.ts";
import { requireOwner } from "../internal/actors.ts";
import { AUTO_APPROVE_SETTING } from "./internal/views.ts";

export const MarketplaceSettingsInput = v.strictObject({ autoApprove: v.boolean("autoApprove: true or false") });

/**
 * The owner's marketplace settings: `autoApprove` makes a submission approved and listed at once —
 * for a personal node whose owner reviews their own work. A community node leaves it off.
 */
export function setMarketplaceSettings(ctx: Ctx, input: v.InferOutput<typeof MarketplaceSettingsInput>): { autoApprove: boolean } {
  requireOwner(ctx, "changes marketplace settings");
  const value = String(input.autoApprove);
  ctx.db.insert(settings).values({ key: AUTO_APPROVE_SETTING, value, updatedAt: ctx.clock.now() }).onConflictDoUpdate({ target: settings.key, set: { value, updatedAt: ctx.clock.now() } }).run();
  return { autoApprove: input.autoApprove };
}
