import { index, integer, real, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import { connections } from "./connections.ts";

/**
 * Relations between two contacts the owner stated or imported ("these two know each other"),
 * besides what messages show (introductions, multi-party syncs). One of the contact graph's edge
 * sources (docs/decisions/contact-graph.md); `a_id` < `b_id`, one row per pair.
 */
export const contactRelations = sqliteTable(
  "contact_relations",
  {
    id: text("id").primaryKey(),
    aId: text("a_id")
      .notNull()
      .references(() => connections.id, { onDelete: "cascade" }),
    bId: text("b_id")
      .notNull()
      .references(() => connections.id, { onDelete: "cascade" }),
    source: text("source", { enum: ["owner", "import"] }).notNull(),
    weight: real("weight").notNull(),
    createdAt: integer("created_at").notNull(),
  },
  (t) => [uniqueIndex("contact_relations_pair").on(t.aId, t.bId), index("contact_relations_b_idx").on(t.bId)],
);

/**
 * The last computed network analysis (clusters, articulation points, bridge edges, sole
 * connectors), kept so a restart serves at once (stale-while-recomputing). `graph_version` is the
 * content hash of the graph it was computed from; `change_key` what the database looked like.
 */
export const networkSnapshots = sqliteTable("network_snapshots", {
  id: integer("id").primaryKey({ autoIncrement: true }),
  graphVersion: text("graph_version").notNull(),
  algoVersion: integer("algo_version").notNull(),
  changeKey: text("change_key").notNull(),
  computedAt: integer("computed_at").notNull(),
  payloadJson: text("payload_json").notNull(),
});

/**
 * Counters bumped by triggers (migration 0009) on every change to `connections` ("contacts") and
 * to `contact_relations` ("relations"): the network analytics compare them on every request
 * instead of scanning the tables (a COUNT over 100k ties took ~5 ms).
 */
export const networkCounters = sqliteTable("network_counters", {
  name: text("name").primaryKey(),
  value: integer("value").notNull(),
});
