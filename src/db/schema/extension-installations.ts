import { sql } from "drizzle-orm";
import { check, index, integer, primaryKey, sqliteTable, text } from "drizzle-orm/sqlite-core";

export const INSTALLATION_STATUSES = ["active", "pending_update", "uninstalled"] as const;
export type InstallationStatus = (typeof INSTALLATION_STATUSES)[number];

/**
 * One extension installed on this node (SPEC "Installation"; docs/decisions/extensions.md). The
 * manifest snapshot and its hash are what the owner consented to; the grant is a subset of it.
 * Only SHA-256 of the current delegation token is kept (SPEC check 3): issuing a new token
 * (renewal, a narrower grant) replaces it, which revokes the previous one.
 */
export const extensionInstallations = sqliteTable(
  "extension_installations",
  {
    id: text("id").primaryKey(),
    extensionId: text("extension_id").notNull(),
    version: text("version").notNull(),
    source: text("source", { enum: ["inline", "url", "marketplace"] }).notNull(),
    sourceUrl: text("source_url"),
    manifestJson: text("manifest_json").notNull(),
    manifestHash: text("manifest_hash").notNull(),
    status: text("status", { enum: INSTALLATION_STATUSES }).notNull(),
    permissionsJson: text("permissions_json").notNull(),
    layersJson: text("layers_json").notNull(),
    maxAutonomyTier: text("max_autonomy_tier", { enum: ["transactional", "social", "personal"] }).notNull(),
    /** The extension's keys: the manifest's, plus a rotated-out key with `graceUntil` (24 h). */
    keysJson: text("keys_json").notNull(),
    /** A newer manifest that asks for more, waiting for POST …/accept-update. */
    pendingManifestJson: text("pending_manifest_json"),
    pendingManifestHash: text("pending_manifest_hash"),
    tokenHash: text("token_hash"),
    tokenExpiresAt: integer("token_expires_at"),
    tokenVersion: integer("token_version").notNull().default(0),
    createdAt: integer("created_at").notNull(),
    updatedAt: integer("updated_at").notNull(),
    uninstalledAt: integer("uninstalled_at"),
  },
  (t) => [
    check("extension_installations_status", sql`${t.status} in ('active', 'pending_update', 'uninstalled')`),
    index("extension_installations_extension_idx").on(t.extensionId, t.status),
  ],
);

/** POST /ext/v1/intents answers kept 24 h per (installation, Idempotency-Key), so a retry cannot act twice. */
export const extensionIdempotency = sqliteTable(
  "extension_idempotency",
  {
    installationId: text("installation_id").notNull(),
    key: text("key").notNull(),
    requestHash: text("request_hash").notNull(),
    status: integer("status").notNull(),
    responseJson: text("response_json").notNull(),
    createdAt: integer("created_at").notNull(),
  },
  (t) => [primaryKey({ columns: [t.installationId, t.key] }), index("extension_idempotency_created_idx").on(t.createdAt)],
);
