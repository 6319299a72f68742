// A witness's answer to an audit query (AUDIT.md §6, audit profile, INK-R53..R60):
// `network.<wordmark|ink>.audit_query_response` {protocol, type, serviceDid, messageId, requester,
// events, proofs: [{eventId, leafIndex, inclusionProof}], treeSize, rootHash, timestamp,
// serviceSignature}, signed over `ink/audit-query-response/v1\n` + JCS(response minus
// serviceSignature) — `type` included, so a relabelled spelling fails the signature.
import { isPlainObject, utf8 } from "./bytes.ts";
import { auditLeafHash, verifyAuditEventSignature } from "./audit.ts";
import { type Ed25519Verifier, ed25519Sign, nobleStrictVerifier } from "./ed25519.ts";
import { canonicalize } from "./jcs.ts";
import type { SenderKeys } from "./keys.ts";
import { checkLaterCheckpoint, EMPTY_TREE_ROOT, isHash, isHashList, isTreeSize, MAX_CONSISTENCY_PROOF_NODES, verifyInclusionProof } from "./merkle.ts";
import { decodeSignature, encodeSignature } from "./signature-encoding.ts";
import { parseTimestamp } from "./timestamp.ts";
import { isAcceptedMessageType, type Wordmark } from "./wordmark.ts";

export const AUDIT_QUERY_RESPONSE_DOMAIN = "ink/audit-query-response/v1\n";

export type AuditQueryResponseInput = {
  response: unknown;
  /** The witness key configured in the agent's card. */
  witnessPublicKey: Uint8Array;
  /** What the verifier asked about and who it is (INK-R55: never accept another's answer). */
  expectedMessageId: string;
  expectedRequester: string;
  /** Pin the witness DID when the caller knows it. */
  expectedServiceDid?: string;
  /** The published keys of an event's agent (rotation-aware with the event's timestamp), or null. */
  agentKeys: (agentId: string) => SenderKeys | null;
  laterCheckpoint?: unknown;
  wordmark: Wordmark;
  verifier?: Ed25519Verifier;
};

export type AuditQueryResponseFailure =
  | "invalid_response"
  | "message_id_mismatch"
  | "requester_mismatch"
  | "service_did_mismatch"
  | "invalid_signature"
  | "empty_tree_mismatch"
  | "event_out_of_scope"
  | "proof_mapping"
  | "proof_invalid"
  | "agent_signature_invalid"
  | "invalid_checkpoint"
  | "checkpoint_rollback"
  | "checkpoint_fork";

export type AuditQueryResponseResult =
  | { ok: true; events: Record<string, unknown>[] }
  | { ok: false; reason: AuditQueryResponseFailure; issue: string };

/**
 * The consumer's gate, first failure wins: structure → bindings (messageId, requester, serviceDid)
 * → the witness signature → `treeSize 0` means no events, no proofs and the empty root → per event,
 * scope (its messageId is the envelope's, the requester is its agent or counterparty) → events and
 * proofs one-to-one by id → every proof walks the locally recomputed leaf (never a supplied hash) to
 * `rootHash` → every event's `agentSignature` under its agent's keys → the later checkpoint.
 */
export function verifyAuditQueryResponse(input: AuditQueryResponseInput): AuditQueryResponseResult {
  const r = input.response;
  const shape = responseShape(r, input.wordmark);
  if (shape !== null) return fail("invalid_response", shape);
  const res = r as Response;
  if (res.messageId !== input.expectedMessageId) return fail("message_id_mismatch", "the response is about another message");
  if (res.requester !== input.expectedRequester) return fail("requester_mismatch", "the response was signed for another requester");
  if (input.expectedServiceDid !== undefined && res.serviceDid !== input.expectedServiceDid) return fail("service_did_mismatch", "the response is from another witness");
  const { serviceSignature: _s, ...signed } = res;
  const jcs = canonicalize(signed);
  const sig = decodeSignature(res.serviceSignature);
  if (!jcs.ok || sig === null || !(input.verifier ?? nobleStrictVerifier)(input.witnessPublicKey, utf8(AUDIT_QUERY_RESPONSE_DOMAIN + jcs.text), sig)) {
    return fail("invalid_signature", "serviceSignature does not verify under the witness key");
  }
  if (res.treeSize === 0 && (res.events.length > 0 || res.proofs.length > 0 || res.rootHash !== EMPTY_TREE_ROOT)) {
    return fail("empty_tree_mismatch", "an empty tree has no events, no proofs and the empty-tree root");
  }
  for (const e of res.events) {
    if (e.messageId !== res.messageId) return fail("event_out_of_scope", `event ${e.id}: about another message`);
    if (e.agentId !== res.requester && e.counterpartyId !== res.requester) return fail("event_out_of_scope", `event ${e.id}: the requester is neither its agent nor its counterparty`);
  }
  const mapping = proofFor(res);
  if (typeof mapping === "string") return fail("proof_mapping", mapping);
  for (const e of res.events) {
    const p = mapping.get(e.id) as Proof;
    const leafHash = auditLeafHash(e);
    const walk = leafHash === null ? null : verifyInclusionProof({ leafHash, leafIndex: p.leafIndex, treeSize: res.treeSize, rootHash: res.rootHash, proof: p.inclusionProof });
    if (walk === null || !walk.ok) return fail("proof_invalid", `event ${e.id}: its proof does not reach rootHash`);
  }
  for (const e of res.events) {
    const keys = typeof e.agentId === "string" ? input.agentKeys(e.agentId) : null;
    if (keys === null || !verifyAuditEventSignature(e, keys, input.verifier).ok) return fail("agent_signature_invalid", `event ${e.id}: agentSignature does not verify under its agent's keys`);
  }
  if (input.laterCheckpoint !== undefined) {
    const later = checkLaterCheckpoint(res.treeSize, res.rootHash, input.laterCheckpoint);
    if (later !== null) return fail(later, "the later checkpoint contradicts this response");
  }
  return { ok: true, events: res.events };
}

/** What a witness does (tests, and a future witness): sign the response minus serviceSignature. */
export function signAuditQueryResponse(response: Omit<Response, "serviceSignature">, secretKey: Uint8Array): Response | null {
  const jcs = canonicalize(response);
  return jcs.ok ? { ...response, serviceSignature: encodeSignature(ed25519Sign(utf8(AUDIT_QUERY_RESPONSE_DOMAIN + jcs.text), secretKey)) } : null;
}

type Proof = { eventId: string; leafIndex: number; inclusionProof: string[] };
type Response = {
  protocol: "ink/0.1";
  type: string;
  serviceDid: string;
  messageId: string;
  requester: string;
  events: Array<Record<string, unknown> & { id: string }>;
  proofs: Proof[];
  treeSize: number;
  rootHash: string;
  timestamp: string;
  serviceSignature: string;
};

const nonEmpty = (v: unknown, max: number): v is string => typeof v === "string" && v.length >= 1 && v.length <= max;

function responseShape(r: unknown, wordmark: Wordmark): string | null {
  if (!isPlainObject(r)) return "not a JSON object";
  if (r.protocol !== "ink/0.1") return "protocol must be ink/0.1";
  if (!isAcceptedMessageType(r.type, "audit_query_response", wordmark)) return "type must be an audit_query_response spelling";
  if (!nonEmpty(r.serviceDid, 512) || !nonEmpty(r.messageId, 256) || !nonEmpty(r.requester, 512)) return "serviceDid, messageId and requester are required";
  if (!isTreeSize(r.treeSize) || !isHash(r.rootHash)) return "treeSize and rootHash (64 lowercase hex) are required";
  if (typeof r.timestamp !== "string" || parseTimestamp(r.timestamp) === null) return "timestamp: a strict INK timestamp";
  if (typeof r.serviceSignature !== "string") return "serviceSignature is required";
  if (!Array.isArray(r.events) || !Array.from(r.events).every((e) => isPlainObject(e) && nonEmpty(e.id, 256))) return "events: objects with an id";
  if (!Array.isArray(r.proofs)) return "proofs: an array";
  for (const p of Array.from(r.proofs)) {
    if (!isPlainObject(p) || !nonEmpty(p.eventId, 256) || !isTreeSize(p.leafIndex)) return "proofs: {eventId, leafIndex, inclusionProof}";
    if (p.leafIndex >= r.treeSize) return `proof for ${p.eventId}: leafIndex must be below treeSize`;
    if (!isHashList(p.inclusionProof)) return `proof for ${p.eventId}: inclusionProof of at most ${MAX_CONSISTENCY_PROOF_NODES} hashes`;
  }
  return null;
}

/** Events and proofs one-to-one: unique event ids, one proof per event, no proof for an unknown id. */
function proofFor(res: Response): Map<string, Proof> | string {
  if (res.events.length !== res.proofs.length) return "events and proofs differ in number";
  const ids = new Set(res.events.map((e) => e.id));
  if (ids.size !== res.events.length) return "an event id repeats";
  const byId = new Map<string, Proof>();
  for (const p of res.proofs) {
    if (!ids.has(p.eventId)) return `a proof names an unknown event ${p.eventId}`;
    if (byId.has(p.eventId)) return `two proofs for event ${p.eventId}`;
    byId.set(p.eventId, p);
  }
  return byId;
}

function fail(reason: AuditQueryResponseFailure, issue: string): AuditQueryResponseResult {
  return { ok: false, reason, issue };
}
