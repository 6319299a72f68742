import { sql } from "drizzle-orm";
import { check, index, integer, sqliteTable, text } from "drizzle-orm/sqlite-core";

/**
 * pending: they asked, the owner decides · requested: we asked · connected · declined (either way)
 * · blocked: the owner refuses everything from them · disconnected: ended or withdrawn
 * · contact: known (e.g. messaged or imported) without a connection.
 */
export const CONNECTION_STATUSES = ["pending", "requested", "connected", "declined", "blocked", "disconnected", "contact"] as const;
export type ConnectionStatus = (typeof CONNECTION_STATUSES)[number];

/**
 * One row per other agent the owner has a relationship with (or a request from/to). `principal`
 * is the canonical principal (INK §2.2); `agentId` the peer's own spelling, used on the wire.
 */
export const connections = sqliteTable(
  "connections",
  {
    id: text("id").primaryKey(),
    principal: text("principal").unique(),
    agentId: text("agent_id"),
    handle: text("handle"),
    displayName: text("display_name"),
    cardUrl: text("card_url"),
    status: text("status", { enum: CONNECTION_STATUSES }).notNull(),
    initiatedBy: text("initiated_by", { enum: ["us", "them"] }).notNull(),
    profileSnapshotJson: text("profile_snapshot_json"),
    requestMessageId: text("request_message_id"),
    createdAt: integer("created_at").notNull(),
    updatedAt: integer("updated_at").notNull(),
    connectedAt: integer("connected_at"),
    lastMessageAt: integer("last_message_at"),
  },
  (t) => [
    check("connections_status", sql`${t.status} in ('pending', 'requested', 'connected', 'declined', 'blocked', 'disconnected', 'contact')`),
    index("connections_status_idx").on(t.status, t.updatedAt),
  ],
);
