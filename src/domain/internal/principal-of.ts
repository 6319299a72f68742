import { decodeEd25519PublicKey, normalizePrincipal } from "../../ink/index.ts";

/**
 * The canonical principal (INK §2.2) of an agent named by the owner, in any spelling: `svc:z…`,
 * `tulpa:z…`, `ink:z…` and the canonical `key:z…` the API itself shows (INK escapes a literal
 * `key:` on the wire to `raw:key:…`; in the owner's own input it can only mean the canonical form)
 * are one `key:z…`; DIDs are their own principal. Null when the value is not an agent id (a
 * key-derived spelling whose key does not decode). The one parser of every owner input that names
 * an agent (policy lists, rule senders, intents' `to`, inbox `from`, new connections):
 * docs/decisions/canonical-principals.md.
 */
export function principalOf(agentId: string): string | null {
  if (agentId.startsWith("key:")) return decodeEd25519PublicKey(agentId.slice(4)) !== null ? agentId : null;
  const normalized = normalizePrincipal(agentId);
  return normalized.ok && !normalized.principal.startsWith("raw:") ? normalized.principal : null;
}
