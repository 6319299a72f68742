import { integer, sqliteTable, text } from "drizzle-orm/sqlite-core";

/**
 * Counters that SQLite triggers bump whenever a table an in-memory cache depends on changes, from
 * any connection (migration 0014): a cache keyed by its counter is invalidated by the very next
 * read after a write, even one made by another process (`kith` CLI commands on a live node's file).
 * `extensions`: agent_keys, extension_installations, marketplace_extensions (listing state), read
 * by every extension request (domain/extensions/internal/request-cache.ts).
 */
export const cacheGenerations = sqliteTable("cache_generations", {
  name: text("name").primaryKey(),
  generation: integer("generation").notNull(),
});
