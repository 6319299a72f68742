import { integer, sqliteTable, text } from "drizzle-orm/sqlite-core";

/**
 * What the node knows about another agent's keys, keyed by canonical principal (INK §2.3).
 * `signingSetObserved` is the authority ratchet of INK §10: once a card key set was seen it is
 * never reset, so the agentId bootstrap key can never be used again for that principal.
 */
export const peerCards = sqliteTable("peer_cards", {
  principal: text("principal").primaryKey(),
  agentId: text("agent_id").notNull(),
  cardUrl: text("card_url"),
  cardJson: text("card_json"),
  fetchedAt: integer("fetched_at"),
  expiresAt: integer("expires_at"),
  signingSetObserved: integer("signing_set_observed", { mode: "boolean" }).notNull().default(false),
  lastRefreshAt: integer("last_refresh_at"),
  createdAt: integer("created_at").notNull(),
  updatedAt: integer("updated_at").notNull(),
});
