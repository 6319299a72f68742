import * as v from "valibot";
import { transaction } from "../../db/client.ts";
import { settings } from "../../db/schema/index.ts";
import type { With } from "../context.ts";
import { conflict, noAgentYet } from "../internal/errors.ts";
import { findOwnListing } from "../discovery/find-own-listing.ts";
import { findAgentRow } from "../agent/find-agent-row.ts";
import { CARD_VISIBILITY_SETTING, cardVisibilityOf, type CardVisibility } from "../agent/card-visibility-of.ts";
import { requireOwner } from "../internal/actors.ts";

export const CardVisibilityInput = v.strictObject({
  visibility: v.pipe(v.picklist(["public", "private"], 'visibility: "public" or "private"'), v.description("private: 404 on the public card paths; connections still get the card through the signed card query")),
});
export type CardVisibilityInput = v.InferOutput<typeof CardVisibilityInput>;

/**
 * `PUT /api/svc/visibility`: makes the Agent Card public or private (SPEC "404 when the agent is
 * absent or private"). A listed agent cannot become private: a directory could not fetch its card,
 * and the listing would say the agent exists; the owner unpublishes first. The card changes at once
 * (its `visibility` member, re-signed on the next read).
 */
export function setCardVisibility(ctx: With<"node">, input: CardVisibilityInput): { visibility: CardVisibility } {
  requireOwner(ctx, "sets the card's visibility");
  const agent = findAgentRow(ctx.db);
  if (!agent) throw noAgentYet();
  const now = ctx.clock.now();
  transaction(ctx.db, (tx) => {
    if (input.visibility === "private" && findOwnListing(tx, agent, ctx.node.wordmark)?.status === "listed") {
      throw conflict("the agent is published in the discovery registry; a private card cannot be listed: unpublish it first (POST /api/svc/discovery/unpublish)");
    }
    tx.insert(settings).values({ key: CARD_VISIBILITY_SETTING, value: input.visibility, updatedAt: now }).onConflictDoUpdate({ target: settings.key, set: { value: input.visibility, updatedAt: now } }).run();
  });
  ctx.log.info("card visibility set", { visibility: input.visibility });
  return { visibility: cardVisibilityOf(ctx.db) };
}
