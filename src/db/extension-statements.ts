import type { Statement } from "bun:sqlite";
import type { Db } from "./client.ts";
import { prepared } from "./prepared.ts";
import type { extensionInstallations } from "./schema/index.ts";

/**
 * The statements every extension request runs (the seven checks, its audit event) as raw
 * prepared SQLite statements, as ingest-statements.ts does for inbound INK: building a drizzle
 * query costs far more than running a prepared one. Column names follow src/db/schema.
 */
export function extensionStatements(db: Db) {
  return prepared(db, "extension-raw", (d) => {
    const s = <R = unknown>(sql: string) => d.$client.prepare(sql) as unknown as Statement<R>;
    return {
      // The request cache's key (domain/extensions/internal/request-cache.ts, migration 0014).
      generation: s<{ generation: number }>(`SELECT generation FROM cache_generations WHERE name = 'extensions'`),
      activeSigningKeys: s<{ keyId: string; multibase: string }>(
        `SELECT key_id AS keyId, public_key_multibase AS multibase FROM agent_keys WHERE role = 'signing' AND status = 'active' ORDER BY created_at DESC`,
      ),
      installation: s<typeof extensionInstallations.$inferSelect>(
        `SELECT id, extension_id AS extensionId, version, source, source_url AS sourceUrl, manifest_json AS manifestJson, manifest_hash AS manifestHash,
                status, permissions_json AS permissionsJson, layers_json AS layersJson, max_autonomy_tier AS maxAutonomyTier, keys_json AS keysJson,
                pending_manifest_json AS pendingManifestJson, pending_manifest_hash AS pendingManifestHash, token_hash AS tokenHash,
                token_expires_at AS tokenExpiresAt, token_version AS tokenVersion, created_at AS createdAt, updated_at AS updatedAt, uninstalled_at AS uninstalledAt
           FROM extension_installations WHERE id = ?`,
      ),
      lastAuditEvent: s<{ sequence: number; hash: string }>(`SELECT sequence, hash FROM audit_events WHERE chain_id = ? ORDER BY sequence DESC LIMIT 1`),
      auditHashAt: s<{ hash: string }>(`SELECT hash FROM audit_events WHERE chain_id = ? AND sequence = ?`),
      insertAuditEvent: s(`INSERT INTO audit_events (chain_id, sequence, event_type, event_json, hash, created_at) VALUES (?, ?, ?, ?, ?, ?)`),
    };
  });
}
