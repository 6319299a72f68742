import type { Db } from "../../db/client.ts";
import { ingestStatements } from "../../db/ingest-statements.ts";

/**
 * SPEC: "404 when the agent is absent or private". `private`: the public card paths answer as if
 * there were no agent; connections still get the card through the signed card query. Stored in
 * `settings` (`card_visibility`); public unless the owner says otherwise.
 */
export type CardVisibility = "public" | "private";

export const CARD_VISIBILITY_SETTING = "card_visibility";

/** A prepared statement: every inbound intent asks (a private card hides the agent from strangers). */
export function cardVisibilityOf(db: Db): CardVisibility {
  return ingestStatements(db).setting.get(CARD_VISIBILITY_SETTING)?.value === "private" ? "private" : "public";
}
