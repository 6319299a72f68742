import { eq } from "drizzle-orm";
import type { Db, Tx } from "../../../db/client.ts";
import { extensionInstallations } from "../../../db/schema/index.ts";
import { formatTimestamp } from "../../../ink/index.ts";
import type { AutonomyTier } from "../../../security/extension-token.ts";
import type { Manifest } from "./manifest.ts";
import { conflict, notFound } from "../../internal/errors.ts";
import { isSuspended } from "./suspension.ts";

export type InstallationRow = typeof extensionInstallations.$inferSelect;

/** A key the installation accepts request signatures from; a rotated-out one until `graceUntil`. */
export interface InstallationKey {
  keyId: string;
  publicKeyMultibase: string;
  status: "active" | "retired";
  graceUntil?: number;
}

export interface Grant {
  permissions: string[];
  layers: string[];
  maxAutonomyTier: AutonomyTier;
}

export function grantOf(row: InstallationRow): Grant {
  return { permissions: JSON.parse(row.permissionsJson), layers: JSON.parse(row.layersJson), maxAutonomyTier: row.maxAutonomyTier };
}

export function keysOf(row: InstallationRow): InstallationKey[] {
  return JSON.parse(row.keysJson);
}

export function manifestOf(row: InstallationRow): Manifest {
  return JSON.parse(row.manifestJson);
}

/** The keys a request may be signed with at `now`: active ones, and retired ones inside their grace. */
export function usableKeys(row: InstallationRow, now: number): InstallationKey[] {
  return usable(keysOf(row), now);
}

/** The same over keys already parsed (the request cache holds them). */
export function usable(keys: InstallationKey[], now: number): InstallationKey[] {
  return keys.filter((k) => k.status === "active" || (k.graceUntil !== undefined && now < k.graceUntil));
}

/** The keys that may renew a token: active ones only (a retired key's grace covers requests, not renewals). */
export function activeKeys(row: InstallationRow): InstallationKey[] {
  return keysOf(row).filter((k) => k.status === "active");
}

/** The manifest's keys as the installation holds them (retired manifest keys are never usable). */
export function keysFromManifest(manifest: Manifest): InstallationKey[] {
  return manifest.keys.map((k) => ({ keyId: k.keyId, publicKeyMultibase: k.publicKeyMultibase, status: k.status }));
}

export function findInstallation(db: Db | Tx, id: string): InstallationRow | undefined {
  return db.select().from(extensionInstallations).where(eq(extensionInstallations.id, id)).get();
}

/** An installation the owner may still change: 404 when missing, 409 once uninstalled. */
export function installedRow(db: Db | Tx, id: string): InstallationRow {
  const row = findInstallation(db, id);
  if (!row) throw notFound("installation");
  if (row.status === "uninstalled") throw conflict("the extension is uninstalled");
  return row;
}

export interface InstallationView {
  installationId: string;
  extensionId: string;
  name: string;
  version: string;
  manifestHash: string;
  source: InstallationRow["source"];
  status: InstallationRow["status"];
  suspended: boolean;
  permissions: string[];
  layers: string[];
  maxAutonomyTier: AutonomyTier;
  keys: Array<{ keyId: string; publicKeyMultibase: string; status: "active" | "retired"; graceUntil?: string }>;
  pendingUpdate: { version: string; manifestHash: string } | null;
  tokenExpiresAt: string | null;
  createdAt: string;
  updatedAt: string;
}

/** The owner's view of an installation; `db` answers whether the marketplace suspended it. */
export function installationView(db: Db | Tx, row: InstallationRow): InstallationView {
  const grant = grantOf(row);
  const manifest = manifestOf(row);
  const pending = row.pendingManifestJson ? (JSON.parse(row.pendingManifestJson) as Manifest) : null;
  return {
    installationId: row.id,
    extensionId: row.extensionId,
    name: manifest.name,
    version: row.version,
    manifestHash: row.manifestHash,
    source: row.source,
    status: row.status,
    suspended: row.status !== "uninstalled" && isSuspended(db, row.extensionId),
    ...grant,
    keys: keysOf(row).map((k) => ({ keyId: k.keyId, publicKeyMultibase: k.publicKeyMultibase, status: k.status, ...(k.graceUntil !== undefined ? { graceUntil: formatTimestamp(k.graceUntil) } : {}) })),
    pendingUpdate: pending && row.pendingManifestHash ? { version: pending.version, manifestHash: row.pendingManifestHash } : null,
    tokenExpiresAt: row.tokenExpiresAt !== null && row.status !== "uninstalled" ? formatTimestamp(row.tokenExpiresAt) : null,
    createdAt: formatTimestamp(row.createdAt),
    updatedAt: formatTimestamp(row.updatedAt),
  };
}

/** An installation and a token just issued for it (install, PUT …/permissions). */
export interface InstallResult {
  installation: InstallationView;
  delegationToken: string;
  tokenExpiresAt: string;
}
