import { and, asc, desc, eq, gte, lte, sql, type SQL } from "drizzle-orm";
import type { Db, Tx } from "../../db/client.ts";
import { extensionStatements } from "../../db/extension-statements.ts";
import { auditEvents } from "../../db/schema/index.ts";
import { concatBytes, utf8 } from "../../ink/bytes.ts";
import { formatTimestamp } from "../../ink/index.ts";
import { verifyAuditEventChain, type AuditChainResult, type AuditEvent } from "../../ink/profiles.ts";
import { nativeEd25519Sign } from "../../security/ed25519-native.ts";
import { sha256Hex } from "../../security/native-hash.ts";
import { auditEventJcs } from "./audit-event-jcs.ts";

const EVENT_DOMAIN = utf8("ink/audit-event\n");

/** Who signs a chain's events: the agent (its id and its active signing key), on the node's database. */
export interface AuditSigner {
  db: Db;
  agentId: string;
  keyId: string;
  privateKey: Uint8Array;
}

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
 * `agentSignature` by the agent's active key over `ink/audit-event\n` + JCS. Runs inside the
 * caller's transaction, so the event commits with what it records; the chain's primary key
 * (chainId, sequence) refuses a fork outright. One mechanism for every log keyed by a chain id:
 * an extension installation's (its id), the node's INK log with one peer (`ink:<principal>`,
 * domain/internal/ink-chain.ts).
 */
export function appendAuditEvent(tx: Tx, chainId: string, signer: AuditSigner, id: string, at: number, entry: AuditEntry): AuditEvent {
  const sql = extensionStatements(signer.db);
  const known = knownHead(signer.db, chainId);
  if (known !== null) {
    try {
      return writeEvent(chainId, known, signer, id, at, entry);
    } catch (error) {
      // Another connection appended since: its event holds the next sequence. Read the real head.
      if ((error as { code?: unknown }).code !== "SQLITE_CONSTRAINT_PRIMARYKEY") throw error;
    }
  }
  return writeEvent(chainId, sql.lastAuditEvent.get(chainId), signer, id, at, entry);
}

function writeEvent(chainId: string, last: ChainHead | null, signer: AuditSigner, id: string, at: number, entry: AuditEntry): AuditEvent {
  const built = buildEvent(last, signer, id, at, entry);
  // AUDIT.md §2: agentSignature = Ed25519("ink/audit-event\n" + JCS), signed natively (hot path)
  return insertEvent(signer.db, chainId, built, nativeEd25519Sign(built.message, signer.privateKey), at, false);
}

/** An event built and hashed, not yet signed: what AUDIT.md §2 signs (`message`) and its chain hash. */
interface BuiltEvent {
  event: AuditEvent;
  message: Uint8Array;
  hash: string;
}

function buildEvent(last: ChainHead | null, signer: AuditSigner, id: string, at: number, entry: AuditEntry): BuiltEvent {
  // Members in the order the stored JSON has always had them (optional ones only when given),
  // assigned rather than spread: one object, no copies.
  const event: AuditEvent = {
    id,
    version: "ink-audit/1",
    agentId: signer.agentId,
    sequence: (last?.sequence ?? 0) + 1,
    previousEventHash: last?.hash ?? null,
    eventType: entry.eventType,
    timestamp: formatTimestamp(at),
    signingKeyId: signer.keyId,
  };
  if (entry.messageId !== undefined) event.messageId = entry.messageId;
  if (entry.correlationId !== undefined) event.correlationId = entry.correlationId;
  if (entry.counterpartyId !== undefined) event.counterpartyId = entry.counterpartyId;
  if (entry.data !== undefined) event.data = entry.data;
  const canonical = auditEventJcs(event);
  if (canonical === null) throw new TypeError(`audit event not canonicalizable: ${entry.eventType}`);
  const bytes = utf8(canonical);
  // AUDIT.md §2: chain hash = SHA-256(JCS) (the signature is not part of it)
  return { event, message: concatBytes(EVENT_DOMAIN, bytes), hash: sha256Hex(bytes) };
}

/** `prepared`: the head may already be past this event (the turn's later requests prepared theirs on it); keep it there. */
function insertEvent(db: Db, chainId: string, built: BuiltEvent, signature: Uint8Array, at: number, prepared: boolean): AuditEvent {
  const { event, hash } = built;
  // encodeSignature's characters (base64url, no padding), encoded natively: ~1 µs less per event;
  // added last, where the stored JSON has always had it
  event.agentSignature = Buffer.from(signature.buffer, signature.byteOffset, signature.length).toString("base64url");
  extensionStatements(db).insertAuditEvent.run(chainId, event.sequence, event.eventType, JSON.stringify(event), hash, at);
  if (!prepared || (heads.get(db)?.get(chainId)?.sequence ?? 0) <= event.sequence) rememberHead(db, chainId, { sequence: event.sequence, hash });
  return event;
}

/** An event prepared ahead of its transaction (prepareAuditEvent), to be signed meanwhile. */
export interface PreparedAuditEvent {
  chainId: string;
  /** What the agent signs: "ink/audit-event\n" + JCS(event). */
  message: Uint8Array;
  built: BuiltEvent;
  after: ChainHead | null;
  id: string;
  at: number;
  entry: AuditEntry;
}

/**
 * Builds the event that will follow the chain's head as this process last prepared or appended it,
 * so that its signature can be computed off the request thread (adapters/crypto-batch.ts) before
 * the write job runs; the head moves on at once, so the next request of the same turn chains on
 * it. appendPreparedAuditEvent stores it only if that head is still the chain's head then.
 */
export function prepareAuditEvent(db: Db, chainId: string, signer: AuditSigner, id: string, at: number, entry: AuditEntry): PreparedAuditEvent {
  const after = heads.get(db)?.get(chainId) ?? extensionStatements(db).lastAuditEvent.get(chainId);
  const built = buildEvent(after, signer, id, at, entry);
  rememberHead(db, chainId, { sequence: built.event.sequence, hash: built.hash });
  return { chainId, message: built.message, built, after, id, at, entry };
}

/**
 * Stores a prepared event with its signature, inside the caller's transaction, when the head it
 * was built on is still the chain's last event: then it is byte for byte the event
 * appendAuditEvent would write now (same head, id, time and key; Ed25519 is deterministic).
 * Otherwise (an event prepared before it was not stored: a replayed nonce, a rolled back
 * transaction; another writer appended) it is appended as appendAuditEvent does, on the head found.
 */
export function appendPreparedAuditEvent(tx: Tx, prepared: PreparedAuditEvent, signer: AuditSigner, signature: Uint8Array): AuditEvent {
  const { chainId, after } = prepared;
  const sql = extensionStatements(signer.db);
  const current = after === null ? sql.lastAuditEvent.get(chainId) === null : sql.auditHashAt.get(chainId, after.sequence)?.hash === after.hash;
  if (current) {
    try {
      return insertEvent(signer.db, chainId, prepared.built, signature, prepared.at, true);
    } catch (error) {
      // an event after that head exists: the next sequence is taken
      if ((error as { code?: unknown }).code !== "SQLITE_CONSTRAINT_PRIMARYKEY") throw error;
    }
  }
  return appendAuditEvent(tx, chainId, signer, prepared.id, prepared.at, prepared.entry);
}

interface ChainHead {
  sequence: number;
  hash: string;
}

const MAX_HEADS = 4096;
const heads = new WeakMap<Db, Map<string, ChainHead>>();

/**
 * The chain's head as this process last appended it, if that event is still there with that hash
 * (one point read instead of the seek for the last sequence, ~6 µs). Sound because a chain only
 * grows by +1 (the primary key refuses a fork): if this process's last event is present, nothing
 * of this process after it was rolled back, and an event another connection appended after it
 * makes the INSERT fail on the primary key, which appendAuditEvent answers with the seek.
 */
function knownHead(db: Db, chainId: string): ChainHead | null {
  const head = heads.get(db)?.get(chainId);
  if (head === undefined) return null;
  return extensionStatements(db).auditHashAt.get(chainId, head.sequence)?.hash === head.hash ? head : null;
}

function rememberHead(db: Db, chainId: string, head: ChainHead): void {
  let map = heads.get(db);
  if (map === undefined) heads.set(db, (map = new Map()));
  map.delete(chainId); // re-inserted last: the oldest chain is the one dropped when full
  if (map.size >= MAX_HEADS) map.delete(map.keys().next().value as string);
  map.set(chainId, head);
}

/** A page of chain `chainId`, oldest first (or newest first for an owner's view), and the chain's length. */
export function listAuditEvents(db: Db | Tx, chainId: string, limit: number, offset: number, newestFirst = false): { events: AuditEvent[]; total: number } {
  const events = eventsWhere(db, eq(auditEvents.chainId, chainId), { limit, offset, newestFirst });
  const total = db.select({ n: sql<number>`count(*)` }).from(auditEvents).where(eq(auditEvents.chainId, chainId)).get()?.n ?? 0;
  return { events, total };
}

/**
 * The contiguous slice of chain `chainId` from the first to the last event about one message
 * (`messageId`, the envelope id as on the wire), oldest first; none when no event names it. A
 * slice, not a filter: INK's consumer checks +1 continuity (AUDIT §4), so events between come along.
 */
export function auditEventsAbout(db: Db | Tx, chainId: string, messageId: string): AuditEvent[] {
  const span = db
    .select({ first: sql<number | null>`min(${auditEvents.sequence})`, last: sql<number | null>`max(${auditEvents.sequence})` })
    .from(auditEvents)
    .where(and(eq(auditEvents.chainId, chainId), sql`json_extract(${auditEvents.eventJson}, '$.messageId') = ${messageId}`))
    .get();
  if (span?.first == null || span.last == null) return [];
  return eventsWhere(db, and(eq(auditEvents.chainId, chainId), gte(auditEvents.sequence, span.first), lte(auditEvents.sequence, span.last))!);
}

/** Re-checks a whole stored chain by INK's slice rules (AUDIT §3): +1 sequences, each link the hash of its predecessor. */
export function verifyAuditChain(db: Db | Tx, chainId: string): AuditChainResult {
  return verifyAuditEventChain(eventsWhere(db, eq(auditEvents.chainId, chainId)));
}

function eventsWhere(db: Db | Tx, where: SQL, page?: { limit: number; offset: number; newestFirst?: boolean }): AuditEvent[] {
  const query = db
    .select({ eventJson: auditEvents.eventJson })
    .from(auditEvents)
    .where(where)
    .orderBy(page?.newestFirst ? desc(auditEvents.sequence) : asc(auditEvents.sequence));
  return (page ? query.limit(page.limit).offset(page.offset) : query).all().map((r) => JSON.parse(r.eventJson) as AuditEvent);
}
