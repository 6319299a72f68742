import { sql } from "drizzle-orm";
import { check, integer, sqliteTable, text } from "drizzle-orm/sqlite-core";

/**
 * The node's one agent. A personal node holds exactly one identity, so the row is pinned to id 1.
 * The agent id itself is not stored: it is `<wordmark>:<genesisKey>` and the wordmark is a setting.
 */
export const agents = sqliteTable(
  "agents",
  {
    id: integer("id").primaryKey(),
    genesisKey: text("genesis_key").notNull().unique(),
    handle: text("handle").notNull().unique(),
    displayName: text("display_name").notNull(),
    timezone: text("timezone").notNull(),
    keySetVersion: integer("key_set_version").notNull(),
    createdAt: integer("created_at").notNull(),
    updatedAt: integer("updated_at").notNull(),
  },
  (t) => [check("agents_single_row", sql`${t.id} = 1`)],
);

/**
 * Public half of every key the agent has held. Private material lives only in agent-key.json.
 * Statuses follow INK §10 (active | retired | revoked); windows are unix ms.
 */
export const agentKeys = sqliteTable(
  "agent_keys",
  {
    keyId: text("key_id").primaryKey(),
    role: text("role", { enum: ["signing", "encryption"] }).notNull(),
    publicKeyMultibase: text("public_key_multibase").notNull().unique(),
    status: text("status", { enum: ["active", "retired", "revoked"] }).notNull(),
    validFrom: integer("valid_from").notNull(),
    validUntil: integer("valid_until"),
    revokedAt: integer("revoked_at"),
    createdAt: integer("created_at").notNull(),
  },
  (t) => [
    check("agent_keys_role", sql`${t.role} in ('signing', 'encryption')`),
    check("agent_keys_status", sql`${t.status} in ('active', 'retired', 'revoked')`),
  ],
);

/**
 * The agent's card rotation chain (INK §13), one signed link per signing-key rotation: the key set
 * after the rotation, signed by the key that was active before it. Written in the rotation's own
 * transaction and published in the card's `rotationChain`, oldest first; at most 32 links.
 */
export const agentRotationLinks = sqliteTable("agent_rotation_links", {
  keySetVersion: integer("key_set_version").primaryKey(),
  linkJson: text("link_json").notNull(),
  createdAt: integer("created_at").notNull(),
});

