import { integer, primaryKey, sqliteTable, text } from "drizzle-orm/sqlite-core";

/** Fixed-window counters that must survive a restart (e.g. email code sends per address). */
export const rateLimits = sqliteTable(
  "rate_limits",
  {
    bucket: text("bucket").notNull(),
    key: text("key").notNull(),
    windowStart: integer("window_start").notNull(),
    count: integer("count").notNull(),
  },
  (t) => [primaryKey({ columns: [t.bucket, t.key] })],
);
