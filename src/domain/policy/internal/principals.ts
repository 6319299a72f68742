import { decodeEd25519PublicKey, KEY_DERIVED_PREFIXES, normalizePrincipal } from "../../../ink/index.ts";

/**
 * The canonical principal (INK §2.2) an agent id the owner wrote stands for, so that lists of
 * agents (blocked, trusted, allowed) are stored and compared the way INK keys every per-sender
 * state: `svc:z…`, `tulpa:z…` and `ink:z…` of one key are the same `key:z…`; a `key:z…` the owner
 * wrote (the canonical form, as the API shows it) is kept; DIDs pass through unchanged. Null when
 * the entry is not an agent id (a key-derived spelling whose key does not decode).
 */
export function canonicalAgent(entry: string): string | null {
  if (entry.startsWith("key:")) return decodeEd25519PublicKey(entry.slice(4)) !== null ? entry : null;
  const normalized = normalizePrincipal(entry);
  return normalized.ok && !normalized.principal.startsWith("raw:") ? normalized.principal : null;
}

/** Stored lists read back canonical (rows written before canonical storage included). */
export function canonicalAgents(entries: readonly string[]): string[] {
  return [...new Set(entries.map((e) => canonicalAgent(e) ?? e))];
}

const KEY_METHODS = new Set([...KEY_DERIVED_PREFIXES, "key:"].flatMap((p) => [p, p.slice(0, -1)]));

/**
 * An agent-id prefix of `allowedMethods`, compared with canonical principals: every spelling of a
 * key-derived id (`svc:`, `tulpa:`, `ink:`, `key:`) is the one method `key:`; others unchanged.
 */
export function canonicalMethod(prefix: string): string {
  return KEY_METHODS.has(prefix.toLowerCase()) ? "key:" : prefix;
}
