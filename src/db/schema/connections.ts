import { sql } from "drizzle-orm";
import { check, index, integer, real, sqliteTable, text } from "drizzle-orm/sqlite-core";

/**
 * pending: they asked, the owner decides · requested: we asked · connected · declined (either way)
 * · blocked: the owner refuses everything from them · disconnected: ended or withdrawn
 * · contact: known (e.g. messaged or imported) without a connection.
 */
export const CONNECTION_STATUSES = ["pending", "requested", "connected", "declined", "blocked", "disconnected", "contact"] as const;
export type ConnectionStatus = (typeof CONNECTION_STATUSES)[number];

/** Dunbar layers, closest first (DESIGN "Names"): ≈5, ≈15, ≈50, ≈150, ≈500. */
export const DUNBAR_LAYERS = ["inner", "active", "sympathy", "recognition", "known"] as const;
export type DunbarLayer = (typeof DUNBAR_LAYERS)[number];

/** Private relationship health bands, best first. */
export const HEALTH_BANDS = ["strong", "healthy", "cooling", "at_risk", "dormant"] as const;
export type HealthBand = (typeof HEALTH_BANDS)[number];

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
    // Relationship model (issue 6; no CHECK on these: a new CHECK makes drizzle-kit rebuild the table): computed Dunbar layer and private health band, see
    // docs/decisions/relationship-layers-and-health.md. Never sent to peers or shown on the card.
    layer: text("layer", { enum: DUNBAR_LAYERS }).notNull().default("known"),
    layerOverride: text("layer_override", { enum: DUNBAR_LAYERS }),
    health: text("health", { enum: HEALTH_BANDS }),
    healthScore: real("health_score"),
    relationshipJson: text("relationship_json"),
    layerComputedAt: integer("layer_computed_at"),
    // Contacts imported without an agent id (LinkedIn): where they came from and who they are.
    source: text("source", { enum: ["ink", "linkedin"] }).notNull().default("ink"),
    importKey: text("import_key").unique(),
    email: text("email"),
    company: text("company"),
    position: text("position"),
    linkedinUrl: text("linkedin_url"),
  },
  (t) => [
    check("connections_status", sql`${t.status} in ('pending', 'requested', 'connected', 'declined', 'blocked', 'disconnected', 'contact')`),
    index("connections_status_idx").on(t.status, t.updatedAt),
  ],
);
