import { integer, primaryKey, sqliteTable, text } from "drizzle-orm/sqlite-core";

/**
 * Hash-chained audit events in INK's record form (AUDIT.md §2), one chain per `chainId` (an
 * extension installation's id; later the node's own INK audit log). `eventJson` is the signed
 * event exactly as served; `hash` its chain hash, which the next event links to. Every read goes
 * by chain (the primary key); there is no index on `created_at` (migration 0016: no query used it,
 * and every accepted intent wrote one more B-tree page for it).
 */
export const auditEvents = sqliteTable(
  "audit_events",
  {
    chainId: text("chain_id").notNull(),
    sequence: integer("sequence").notNull(),
    eventType: text("event_type").notNull(),
    eventJson: text("event_json").notNull(),
    hash: text("hash").notNull(),
    createdAt: integer("created_at").notNull(),
  },
  (t) => [primaryKey({ columns: [t.chainId, t.sequence] })],
);
