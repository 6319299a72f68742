import type { Tx } from "../../db/client.ts";
import type { AuditEvent } from "../../ink/profiles.ts";
import type { With } from "../context.ts";
import { appendAuditEvent, type AuditEntry } from "../internal/audit-chain.ts";
import { inkChainOf } from "../internal/ink-chain.ts";
import { inkSigner } from "../internal/ink-events-ahead.ts";

/**
 * Records an INK event (`message.received`, `message.sent`, `receipt.sent|received`, AUDIT §2)
 * in the counterparty's chain, in the caller's transaction, signed by the agent's active key.
 * Nothing when the node has no agent or key yet (no INK traffic is possible then).
 */
export function recordInkEvent(tx: Tx, ctx: With<"node" | "vault">, peerPrincipal: string, entry: AuditEntry): AuditEvent | null {
  const signer = inkSigner(ctx);
  if (!signer) return null;
  return appendAuditEvent(tx, inkChainOf(peerPrincipal), signer, ctx.ids.next(), ctx.clock.now(), entry);
}
