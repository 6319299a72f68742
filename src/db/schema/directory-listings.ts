import { sql } from "drizzle-orm";
import { check, index, integer, sqliteTable, text } from "drizzle-orm/sqlite-core";

/**
 * The discovery registry: one row per agent this node lists, its own (`self`) and others that
 * listed themselves here (`remote`), keyed by canonical principal (INK §2.3). Only `listed` rows
 * are in the full-text index `directory_fts` (FTS5, kept in step by triggers in the same
 * statement, see migrations/*_directory_fts.sql); `delisted` and `dropped` rows stay for the
 * owner's view and are never searched. Array fields are JSON arrays of strings; `facets` holds
 * their normalized values as `\n<kind>:<value>\n` lines for exact, case-insensitive filters.
 * `id` is an INTEGER PRIMARY KEY so the FTS rowid survives VACUUM.
 */
export const directoryListings = sqliteTable(
  "directory_listings",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    principal: text("principal").notNull().unique(),
    agentId: text("agent_id").notNull(),
    cardUrl: text("card_url").notNull(),
    handle: text("handle").notNull(),
    /** normalizeHandle(handle): what `GET /{handle}` compares. */
    handleKey: text("handle_key").notNull(),
    displayName: text("display_name").notNull(),
    headline: text("headline").notNull(),
    bio: text("bio").notNull(),
    skills: text("skills").notNull(),
    interests: text("interests").notNull(),
    openTo: text("open_to").notNull(),
    roles: text("roles").notNull(),
    tags: text("tags").notNull(),
    location: text("location"),
    facets: text("facets").notNull(),
    source: text("source", { enum: ["self", "remote"] }).notNull(),
    status: text("status", { enum: ["listed", "delisted", "dropped"] }).notNull(),
    listedAt: integer("listed_at").notNull(),
    updatedAt: integer("updated_at").notNull(),
    lastValidatedAt: integer("last_validated_at"),
    nextValidationAt: integer("next_validation_at"),
    failures: integer("failures").notNull().default(0),
    lastError: text("last_error"),
  },
  (t) => [
    check("directory_listings_source", sql`${t.source} in ('self', 'remote')`),
    check("directory_listings_status", sql`${t.status} in ('listed', 'delisted', 'dropped')`),
    index("directory_listings_handle_idx").on(t.handleKey, t.status),
    index("directory_listings_validation_idx").on(t.status, t.nextValidationAt),
  ],
);

