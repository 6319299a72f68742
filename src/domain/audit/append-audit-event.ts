import { desc, eq } from "drizzle-orm";
import type { Tx } from "../../db/client.ts";
import { auditEvents } from "../../db/schema/index.ts";
import { formatTimestamp } from "../../ink/index.ts";
import { auditEventHash, signAuditEvent, type AuditEvent } from "../../ink/profiles.ts";
import { nativeEd25519Sign } from "../../security/ed25519-native.ts";

/** Who signs a chain's events: the agent (its id and its active signing key). */
export interface AuditSigner {
  agentId: string;
  keyId: string;
  privateKey: Uint8Array;
}

/** What an event says; the chain adds id, version, sequence, link, time, key id and signature. */
export interface AuditEntry {
  eventType: string;
  messageId?: string;
  correlationId?: string;
  counterpartyId?: string;
  data?: Record<string, unknown>;
}

/**
 * Appends one event to chain `chainId` in INK's audit record form (AUDIT.md §2): `sequence` +1
 * from the chain's last, `previousEventHash` = that event's chain hash (null for the first),
 * `agentSignature` over `ink/audit-event\n` + JCS by the agent's active key. Inside the caller's
 * transaction, so the event commits (or rolls back) with what it records; the key (chain,
 * sequence) refuses a fork outright. One mechanism for every chain: the node's INK log is chain
 * `ink` (record-ink-event.ts); the extension runtime keys its chains by installation.
 */
export function appendAuditEvent(tx: Tx, chainId: string, signer: AuditSigner, id: string, at: number, entry: AuditEntry): AuditEvent {
  const last = tx.select({ sequence: auditEvents.sequence, hash: auditEvents.hash }).from(auditEvents).where(eq(auditEvents.chainId, chainId)).orderBy(desc(auditEvents.sequence)).limit(1).get();
  const event: AuditEvent = {
    id,
    version: "ink-audit/1",
    agentId: signer.agentId,
    sequence: (last?.sequence ?? 0) + 1,
    previousEventHash: last?.hash ?? null,
    eventType: entry.eventType,
    timestamp: formatTimestamp(at),
    signingKeyId: signer.keyId,
    ...(entry.messageId !== undefined ? { messageId: entry.messageId } : {}),
    ...(entry.correlationId !== undefined ? { correlationId: entry.correlationId } : {}),
    ...(entry.counterpartyId !== undefined ? { counterpartyId: entry.counterpartyId } : {}),
    ...(entry.data !== undefined ? { data: entry.data } : {}),
  };
  const signed = signAuditEvent(event, signer.privateKey, nativeEd25519Sign);
  const hash = auditEventHash(event);
  if (!signed.ok || hash === null) throw new TypeError(`audit event not canonicalizable: ${entry.eventType}`);
  tx.insert(auditEvents).values({ chainId, sequence: event.sequence, eventType: event.eventType, eventJson: JSON.stringify(signed.event), hash, createdAt: at }).run();
  return signed.event;
}
