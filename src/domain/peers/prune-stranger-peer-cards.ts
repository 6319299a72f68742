import { and, lt, sql } from "drizzle-orm";
import { peerCards } from "../../db/schema/index.ts";
import type { Ctx } from "../context.ts";

/** What the node learned about an agent it has nothing to do with is forgotten after a day. */
export const STRANGER_CARD_RETENTION_MS = 24 * 60 * 60 * 1000;

/**
 * State strangers create expires (issue 21). A peer card whose principal has no connection, no
 * message (in or out, so nothing queued either) and no directory listing, untouched for a day, is
 * deleted. INK §12 keeps the authenticated-card ratchet forever; Kith keeps it for every agent it
 * has something to do with, and lets a stranger's go (a stranger seen again starts cold).
 */
export function pruneStrangerPeerCards(ctx: Pick<Ctx, "db" | "clock">): number {
  return ctx.db
    .delete(peerCards)
    .where(
      and(
        lt(peerCards.updatedAt, ctx.clock.now() - STRANGER_CARD_RETENTION_MS),
        sql`NOT EXISTS (SELECT 1 FROM connections c WHERE c.principal = ${peerCards.principal})`,
        sql`NOT EXISTS (SELECT 1 FROM messages m WHERE m.peer_principal = ${peerCards.principal})`,
        sql`NOT EXISTS (SELECT 1 FROM directory_listings l WHERE l.principal = ${peerCards.principal})`,
      ),
    )
    .returning({ p: peerCards.principal })
    .all().length;
}
