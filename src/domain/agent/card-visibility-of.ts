import { eq } from "drizzle-orm";
import type { Db } from "../../db/client.ts";
import { settings } from "../../db/schema/index.ts";

/**
 * SPEC: "404 when the agent is absent or private". `private`: the public card paths answer as if
 * there were no agent; connections still get the card through the signed card query. Stored in
 * `settings` (`card_visibility`); public unless the owner says otherwise.
 */
export type CardVisibility = "public" | "private";

export const CARD_VISIBILITY_SETTING = "card_visibility";

export function cardVisibilityOf(db: Db): CardVisibility {
  const row = db.select({ value: settings.value }).from(settings).where(eq(settings.key, CARD_VISIBILITY_SETTING)).get();
  return row?.value === "private" ? "private" : "public";
}
