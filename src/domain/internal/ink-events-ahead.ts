import type { Tx } from "../../db/client.ts";
import type { AuditEvent } from "../../ink/profiles.ts";
import type { With } from "../context.ts";
import { activeSigningKey } from "../agent/active-signing-key.ts";
import { cachedOwnIdentity } from "../agent/cached-own-identity.ts";
import { appendAuditEvent, appendPreparedAuditEvent, prepareAuditEvent, type AuditEntry, type AuditSigner, type PreparedAuditEvent } from "./audit-chain.ts";
import { inkChainOf } from "./ink-chain.ts";

// An inbound intent's `message.received` event (AUDIT §2) signed off the serving thread where there
// are spare cores (docs/decisions/inbound-performance.md, "The inbound audit signature on the
// batcher"), as the extension path's events are (extensions.md §13): built on the chain's head
// beside the intent's verifies, signed in the same worker batch, stored by the write job.

/** Who signs the node's INK events: the agent and its active key; null before the agent exists. */
export function inkSigner(ctx: With<"node" | "vault">): AuditSigner | null {
  const own = cachedOwnIdentity(ctx.db, ctx.node);
  const key = activeSigningKey(ctx.db, ctx.vault);
  if (!own || !key) return null;
  return { db: ctx.db, agentId: own.agentId, keyId: key.keyId, privateKey: key.privateKey };
}

/**
 * inkSigner for an event signed ahead, which may not fail what it runs beside (an intent's
 * authentication): null when the key cannot be read now (a key file that no longer parses, read
 * again because the active key is one this process has not loaded). No event is then signed ahead;
 * the intent's own write records it in place, where reading the key is the write's own failure.
 */
export function inkSignerAhead(ctx: With<"node" | "vault">): AuditSigner | null {
  try {
    return inkSigner(ctx);
  } catch {
    return null;
  }
}

/** The entry of an inbound intent's `message.received` event. */
export function messageReceived(envelope: { id: string; correlationId: string }, from: string): AuditEntry {
  return { eventType: "message.received", messageId: envelope.id, correlationId: envelope.correlationId, counterpartyId: from };
}

/** An INK event built ahead of its transaction, and its signature. */
export interface SignedInkEvent {
  peerPrincipal: string;
  prepared: PreparedAuditEvent;
  signer: AuditSigner;
  signature: Uint8Array;
}

/**
 * The event recordInkEvent would write, built now on the chain's head (the head moves on at once, so
 * the next one of the same turn chains on it) and signed on a worker. Null where there is no worker
 * (the caller records in place: today's path) or no agent or key. Its sign joins the batch of the
 * turn it is called in (adapters/crypto-batch.ts). `known`: inkSignerAhead's answer when the caller
 * already read it (inside its own read transaction); a key that is no longer the active one when the
 * event is stored is handled there (recordSignedInkEvent).
 */
export async function signInkEventAhead(ctx: With<"node" | "vault" | "crypto">, peerPrincipal: string, entry: AuditEntry, known?: AuditSigner | null): Promise<SignedInkEvent | null> {
  if (ctx.crypto.size === 0) return null;
  const signer = known === undefined ? inkSignerAhead(ctx) : known;
  if (!signer) return null;
  const prepared = prepareAuditEvent(ctx.db, inkChainOf(peerPrincipal), signer, ctx.ids.next(), ctx.clock.now(), entry);
  return { peerPrincipal, prepared, signer, signature: await ctx.crypto.sign(prepared.message, signer.privateKey) };
}

/**
 * Stores an event signed ahead, in the caller's transaction: as built when its chain's head and the
 * agent's active key are still those it was built with (then byte for byte what recordInkEvent
 * writes for that id and time: Ed25519 is deterministic). Otherwise recorded as recordInkEvent
 * records, on the real head with the key active now: a rotation or a revocation counts from the very
 * next event, and an event signed ahead and never stored (a refused or duplicate message) leaves no gap.
 */
export function recordSignedInkEvent(tx: Tx, ctx: With<"node" | "vault">, signed: SignedInkEvent): AuditEvent | null {
  const { prepared, signer } = signed;
  const active = inkSigner(ctx);
  if (!active) return null;
  if (active.keyId !== signer.keyId || active.agentId !== signer.agentId) return appendAuditEvent(tx, prepared.chainId, active, ctx.ids.next(), ctx.clock.now(), prepared.entry);
  return appendPreparedAuditEvent(tx, prepared, active, signed.signature);
}
