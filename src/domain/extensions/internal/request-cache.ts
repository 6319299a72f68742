import type { Db } from "../../../db/client.ts";
import { extensionStatements } from "../../../db/extension-statements.ts";
import type { DelegationPayload } from "../../../security/extension-token.ts";
import { grantOf, keysOf, type Grant, type InstallationKey, type InstallationRow } from "./installation-row.ts";
import { isSuspended } from "./suspension.ts";

/** A delegation token that verified under the agent's active keys of this generation. */
export interface CachedToken {
  hash: string;
  payload: DelegationPayload;
  /** `payload.expiresAt` parsed (check 2). */
  expiresAt: number;
}

/** What checks 3–7 and the actor need of an installation, parsed once per generation. */
export interface CachedInstallation {
  id: string;
  extensionId: string;
  status: InstallationRow["status"];
  tokenHash: string | null;
  suspended: boolean;
  keys: InstallationKey[];
  grant: Grant;
}

/** One generation's cache; a request reads it once (requestCache) and hands it on to its audit event's signer. */
export interface RequestCache {
  generation: number;
  tokens: Map<string, CachedToken>;
  installations: Map<string, CachedInstallation | null>;
  /** The agent's active signing key (activeSigningKey), undefined until looked up. */
  activeKey?: { keyId: string; multibase: string } | null;
}

const MAX_CACHED = 4096;
const caches = new WeakMap<Db, RequestCache>();

/**
 * The extension request path's cache, valid for one value of `cache_generations.extensions`
 * (migration 0014): SQLite triggers bump it on every write to agent_keys,
 * extension_installations and marketplace listing states, from any connection, so a rotation,
 * a revocation, a grant change, a renewal, an uninstall, a suspension or a new extension key is
 * seen by the next request that reads it. One prepared read per call; the counter is read before
 * any row, so a row cached under a generation is never older than that generation.
 * `readOnlyTransaction`: the caller opened a transaction on `db` that only reads.
 */
export function requestCache(db: Db, readOnlyTransaction = false): RequestCache {
  // A database without the counter row (never, after migration) caches nothing: NaN equals nothing.
  const generation = extensionStatements(db).generation.get()?.generation ?? Number.NaN;
  // Inside a transaction the counter may count writes that roll back; what is read there is not
  // kept. Not so in the checks' own read transaction (seven-checks.ts), which writes nothing.
  if (db.$client.inTransaction && !readOnlyTransaction) return { generation, tokens: new Map(), installations: new Map() };
  let cache = caches.get(db);
  if (cache === undefined || cache.generation !== generation) {
    cache = { generation, tokens: new Map(), installations: new Map() };
    caches.set(db, cache);
  }
  return cache;
}

/** The installation as checks 3–7 read it (null: no such installation), from the cache or one read. */
export function cachedInstallation(db: Db, cache: RequestCache, id: string): CachedInstallation | null {
  const hit = cache.installations.get(id);
  if (hit !== undefined) return hit;
  const row = extensionStatements(db).installation.get(id);
  const found = row ? { id: row.id, extensionId: row.extensionId, status: row.status, tokenHash: row.tokenHash, suspended: isSuspended(db, row.extensionId), keys: keysOf(row), grant: grantOf(row) } : null;
  remember(cache.installations, id, found);
  return found;
}

/**
 * The agent's active signing key, its id and multibase (the newest active one, as the query orders
 * them): who signs audit events (agent-signer.ts) and the key GET /ext/v1/identity names. Read once
 * per generation: it changes only with agent_keys, whose every write bumps the generation.
 */
export function activeSigningKey(db: Db, cache: RequestCache): { keyId: string; multibase: string } | null {
  if (cache.activeKey === undefined) cache.activeKey = extensionStatements(db).activeSigningKeys.get() ?? null;
  return cache.activeKey;
}

/** Adds to a bounded map, dropping the oldest entry when full. */
export function remember<V>(map: Map<string, V>, key: string, value: V): void {
  if (map.size >= MAX_CACHED) map.delete(map.keys().next().value as string);
  map.set(key, value);
}
