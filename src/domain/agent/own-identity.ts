import { and, desc, eq } from "drizzle-orm";
import type { Db } from "../../db/client.ts";
import { agentKeys } from "../../db/schema/index.ts";
import type { KeyVault } from "../../adapters/key-vault.ts";
import type { NodeIdentity } from "../context.ts";
import { agentIdOf, findAgentRow, inboundPathOf, type AgentRow } from "./find-agent-row.ts";

export interface OwnIdentity {
  agent: AgentRow;
  agentId: string;
  /** The path of the published endpoint: the signature-base PATH a receiver rebuilds (INK §6.1). */
  endpointPath: string;
  cardUrl: string;
}

export function ownIdentity(db: Db, node: NodeIdentity): OwnIdentity | null {
  const agent = findAgentRow(db);
  if (!agent) return null;
  return identityOf(agent, node);
}

const cache = new WeakMap<Db, { publicUrl: string; wordmark: string; identity: OwnIdentity }>();

/**
 * The same, memoized per database for the inbound hot path: once the agent exists, its id, endpoint
 * path and card URL never change (they derive from the genesis key and the node settings).
 */
export function cachedOwnIdentity(db: Db, node: NodeIdentity): OwnIdentity | null {
  const hit = cache.get(db);
  if (hit && hit.publicUrl === node.publicUrl && hit.wordmark === node.wordmark) return hit.identity;
  const identity = ownIdentity(db, node);
  if (identity) cache.set(db, { publicUrl: node.publicUrl, wordmark: node.wordmark, identity });
  return identity;
}

function identityOf(agent: AgentRow, node: NodeIdentity): OwnIdentity {
  const agentId = agentIdOf(agent, node.wordmark);
  const endpointPath = new URL(node.publicUrl + inboundPathOf(agentId)).pathname;
  return { agent, agentId, endpointPath, cardUrl: `${node.publicUrl}/ink/v1/${encodeURIComponent(agentId)}/agent.json` };
}

/**
 * The private key behind the current active signing key. The key file is re-read when the
 * database names a key the vault has not loaded (a `kith keys rotate` in another process).
 */
export function activeSigningKey(db: Db, vault: KeyVault): { keyId: string; privateKey: Uint8Array } | null {
  const row = db
    .select({ keyId: agentKeys.keyId })
    .from(agentKeys)
    .where(and(eq(agentKeys.role, "signing"), eq(agentKeys.status, "active")))
    .orderBy(desc(agentKeys.createdAt))
    .get();
  if (!row) return null;
  let key = vault.find(row.keyId);
  if (!key) {
    vault.reload();
    key = vault.find(row.keyId);
  }
  return key ? { keyId: key.keyId, privateKey: key.privateKey } : null;
}

/** X25519 private keys for opening sealed envelopes: the active one first, then retired ones (ENCRYPTION §5 [E2]). */
export function decryptionKeys(db: Db, vault: KeyVault): Uint8Array[] {
  const rows = db.select().from(agentKeys).where(eq(agentKeys.role, "encryption")).orderBy(desc(agentKeys.createdAt)).all();
  const ordered = [...rows.filter((r) => r.status === "active"), ...rows.filter((r) => r.status === "retired")];
  const keys: Uint8Array[] = [];
  for (const r of ordered) {
    const k = vault.find(r.keyId);
    if (k) keys.push(k.privateKey);
  }
  return keys;
}
