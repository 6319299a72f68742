import type { Tx } from "../../db/client.ts";
import type { AuditEvent } from "../../ink/profiles.ts";
import type { With } from "../context.ts";
import { activeSigningKey } from "../agent/active-signing-key.ts";
import { cachedOwnIdentity } from "../agent/cached-own-identity.ts";
import { appendAuditEvent, type AuditEntry } from "../internal/audit-chain.ts";
import { inkChainOf } from "./internal/ink-chain.ts";

/**
 * Records an INK event (`message.received`, `message.sent`, `receipt.sent|received`, AUDIT §2)
 * in the counterparty's chain, in the caller's transaction, signed by the agent's active key.
 * Nothing when the node has no agent or key yet (no INK traffic is possible then).
 */
export function recordInkEvent(tx: Tx, ctx: With<"node" | "vault">, peerPrincipal: string, entry: AuditEntry): AuditEvent | null {
  const own = cachedOwnIdentity(ctx.db, ctx.node);
  const key = activeSigningKey(ctx.db, ctx.vault);
  if (!own || !key) return null;
  return appendAuditEvent(tx, inkChainOf(peerPrincipal), { db: ctx.db, agentId: own.agentId, keyId: key.keyId, privateKey: key.privateKey }, ctx.ids.next(), ctx.clock.now(), entry);
}
