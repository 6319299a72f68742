import { index, integer, sqliteTable, text } from "drizzle-orm/sqlite-core";

/**
 * Replay nonces seen on inbound requests (INK §8): inserted with the message, kept past the window.
 * Append-only by an AUTOINCREMENT id: the replay check is answered from an in-memory index of the
 * rows (db/nonce-index.ts), so the table needs no random-keyed (scope, nonce)
 * ordering, whose insert cost 21–33 µs per intent once it held 40k rows (an append: 4 µs). The id
 * is never reused by a committed row, so the index can catch up on other connections' rows by id.
 */
export const inboundNonces = sqliteTable(
  "inbound_nonces",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    scope: text("scope").notNull(),
    nonce: text("nonce").notNull(),
    seenAt: integer("seen_at").notNull(),
  },
  (t) => [index("inbound_nonces_seen_idx").on(t.seenAt)],
);
