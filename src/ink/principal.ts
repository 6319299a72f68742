// Principals (INK §2): key-derived agent ids, the `svc:`/`tulpa:`/`ink:` aliases, and
// normalization to the canonical principal that keys every per-sender security state.
import { decodeMultibaseKey, encodeEd25519PublicKey } from "./multibase.ts";
import type { Wordmark } from "./wordmark.ts";

/** Prefixes that name a key-derived principal. All spell the same actor (INK §2.1, DESIGN). */
export const KEY_DERIVED_PREFIXES = ["svc:", "tulpa:", "ink:"] as const;

const MAX_AGENT_ID_UNITS = 512;

export type NormalizeResult =
  | { ok: true; principal: string }
  | { ok: false; reason: "invalid_agent_id" };

/** Agent id of a 32-byte Ed25519 genesis key: `<wordmark>:z6Mk…` (INK §2.1). */
export function deriveAgentId(publicKey: Uint8Array, wordmark: Wordmark): string {
  return `${wordmark}:${encodeEd25519PublicKey(publicKey)}`;
}

/**
 * Canonical principal of an agent id (INK §2.2, frozen): key-derived ids of any alias become
 * `key:z…` (decoded and re-encoded), a literal `key:` input is escaped to `raw:key:…`, a
 * malformed key-derived id becomes `raw:<input>`, anything else passes through unchanged.
 * Input errors (non-string, empty, > 512 UTF-16 units) are not principals.
 */
export function normalizePrincipal(agentId: unknown): NormalizeResult {
  if (typeof agentId !== "string" || agentId.length === 0 || agentId.length > MAX_AGENT_ID_UNITS) {
    return { ok: false, reason: "invalid_agent_id" };
  }
  const tail = keyDerivedTail(agentId);
  if (tail !== null) {
    const decoded = decodeMultibaseKey(tail);
    if (decoded === null || decoded.kind !== "ed25519") return { ok: true, principal: `raw:${agentId}` };
    // Decode-then-re-encode (INK §2.2). base58btc decoding accepts only alphabet characters and is
    // a bijection (leading zero bytes ↔ leading `1`s), so the re-encoding is exactly `tail`.
    return { ok: true, principal: `key:${tail}` };
  }
  if (agentId.startsWith("key:")) return { ok: true, principal: `raw:${agentId}` };
  return { ok: true, principal: agentId };
}

/**
 * The genesis Ed25519 key embedded in a key-derived agent id, or null for foreign principals
 * and malformed ids. It is the bootstrap key only until a card signing set is observed (INK §2.1).
 */
export function agentIdPublicKey(agentId: unknown): Uint8Array | null {
  if (typeof agentId !== "string" || agentId.length > MAX_AGENT_ID_UNITS) return null;
  const tail = keyDerivedTail(agentId);
  if (tail === null) return null;
  const decoded = decodeMultibaseKey(tail);
  return decoded !== null && decoded.kind === "ed25519" ? decoded.key : null;
}

/** True for `key:`/`raw:` values, which must never be emitted as agentId/from/to ([C5]). */
export function isReservedPrincipalSpelling(value: string): boolean {
  return value.startsWith("key:") || value.startsWith("raw:");
}

function keyDerivedTail(agentId: string): string | null {
  for (const prefix of KEY_DERIVED_PREFIXES) {
    if (agentId.startsWith(prefix)) return agentId.slice(prefix.length);
  }
  return null;
}

