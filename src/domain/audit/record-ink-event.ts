import type { Tx } from "../../db/client.ts";
import type { AuditEvent } from "../../ink/profiles.ts";
import type { With } from "../context.ts";
import { activeSigningKey } from "../agent/active-signing-key.ts";
import { cachedOwnIdentity } from "../agent/cached-own-identity.ts";
import { appendAuditEvent, appendPreparedAuditEvent, prepareAuditEvent, type AuditEntry, type AuditSigner, type PreparedAuditEvent } from "../internal/audit-chain.ts";
import { inkChainOf } from "./internal/ink-chain.ts";

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

/** An INK event built ahead of its transaction and signed meanwhile on the crypto batcher's workers. */
export interface SignedInkEvent {
  peerPrincipal: string;
  prepared: PreparedAuditEvent;
  signer: AuditSigner;
  signature: Uint8Array;
}

/**
 * The event recordInkEvent would write, built now on the chain's head and signed on a worker
 * (adapters/crypto-batch.ts; docs/decisions/inbound-performance.md, "audit signature on the
 * batcher"), so that the serving thread does not sign it. Null where there is no worker (the caller
 * records in place, today's path) or no agent or key.
 */
export async function signInkEventAhead(ctx: With<"node" | "vault" | "crypto">, peerPrincipal: string, entry: AuditEntry): Promise<SignedInkEvent | null> {
  if (ctx.crypto.size === 0) return null;
  const signer = inkSigner(ctx);
  if (!signer) return null;
  const prepared = prepareAuditEvent(ctx.db, inkChainOf(peerPrincipal), signer, ctx.ids.next(), ctx.clock.now(), entry);
  return { peerPrincipal, prepared, signer, signature: await ctx.crypto.sign(prepared.message, signer.privateKey) };
}

/**
 * Stores an event signed ahead, in the caller's transaction: as built when its chain's head and the
 * agent's active key are still those it was built with (then byte for byte what recordInkEvent
 * writes for that id and time: Ed25519 is deterministic), otherwise recorded in place on the real
 * head with the key active now (a rotation counts from the very next event; an event signed ahead
 * and never stored, for a replay or a refused message, leaves no gap).
 */
export function recordSignedInkEvent(tx: Tx, ctx: With<"node" | "vault">, signed: SignedInkEvent): AuditEvent | null {
  const { prepared, signer } = signed;
  const active = inkSigner(ctx);
  if (!active || active.keyId !== signer.keyId || active.agentId !== signer.agentId) return recordInkEvent(tx, ctx, signed.peerPrincipal, prepared.entry);
  return appendPreparedAuditEvent(tx, prepared, active, signed.signature);
}

function inkSigner(ctx: With<"node" | "vault">): AuditSigner | null {
  const own = cachedOwnIdentity(ctx.db, ctx.node);
  const key = activeSigningKey(ctx.db, ctx.vault);
  if (!own || !key) return null;
  return { db: ctx.db, agentId: own.agentId, keyId: key.keyId, privateKey: key.privateKey };
}
