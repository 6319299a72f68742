import { sql } from "drizzle-orm";
import { check, integer, sqliteTable, text } from "drizzle-orm/sqlite-core";

/**
 * The owner's policy (one row): the autonomy policy (PRODUCT-SURFACE §3) and the foreign-sender
 * policy (§6). Lists are JSON arrays of strings.
 */
export const ownerPolicy = sqliteTable(
  "owner_policy",
  {
    id: integer("id").primaryKey(),
    maxAutonomyLevel: text("max_autonomy_level", { enum: ["none", "draft_only", "auto_respond", "full"] }).notNull(),
    trustedDidsJson: text("trusted_dids_json").notNull().default("[]"),
    maxInboundRate: integer("max_inbound_rate").notNull(),
    acceptForeignAgents: integer("accept_foreign_agents", { mode: "boolean" }).notNull(),
    allowedMethodsJson: text("allowed_methods_json").notNull().default("[]"),
    allowedHostsJson: text("allowed_hosts_json").notNull().default("[]"),
    allowedDidsJson: text("allowed_dids_json").notNull().default("[]"),
    blockedDidsJson: text("blocked_dids_json").notNull().default("[]"),
    updatedAt: integer("updated_at").notNull(),
  },
  (t) => [check("owner_policy_single_row", sql`${t.id} = 1`)],
);

