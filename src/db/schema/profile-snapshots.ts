import { integer, sqliteTable, text } from "drizzle-orm/sqlite-core";

/**
 * The owner's profile snapshots by scope (INK §15 ProfileSnapshot): `public` (card, discovery,
 * requests to strangers), `connected` (connection responses, card queries from connections) and
 * named custom scopes. `json` is a validated snapshot.
 */
export const profileSnapshots = sqliteTable("profile_snapshots", {
  scope: text("scope").primaryKey(),
  json: text("json").notNull(),
  updatedAt: integer("updated_at").notNull(),
});
