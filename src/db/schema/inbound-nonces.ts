import { index, integer, primaryKey, sqliteTable, text } from "drizzle-orm/sqlite-core";

/** Replay nonces seen on inbound requests (INK §8): inserted with the message, kept past the window. */
export const inboundNonces = sqliteTable(
  "inbound_nonces",
  {
    scope: text("scope").notNull(),
    nonce: text("nonce").notNull(),
    seenAt: integer("seen_at").notNull(),
  },
  (t) => [primaryKey({ columns: [t.scope, t.nonce] }), index("inbound_nonces_seen_idx").on(t.seenAt)],
);
