// Witness inclusion receipts (AUDIT.md §6, audit profile): `network.tulpa.audit_inclusion`
// {eventId, leafIndex, treeSize, rootHash, timestamp, serviceSignature, inclusionProof?}, signed
// by the witness over `ink/audit-inclusion/v1\n` + JCS of exactly the five committed fields. The
// proof is not signed; it is checked by walking a leaf the verifier computes itself.
import { isPlainObject, utf8 } from "./bytes.ts";
import { type Ed25519Verifier, ed25519Sign, nobleStrictVerifier } from "./ed25519.ts";
import { auditLeafHash } from "./audit.ts";
import { canonicalize } from "./jcs.ts";
import { checkLaterCheckpoint, isHash, isHashList, isTreeSize, MAX_CONSISTENCY_PROOF_NODES, verifyInclusionProof } from "./merkle.ts";
import { decodeSignature, encodeSignature } from "./signature-encoding.ts";
import { parseTimestamp } from "./timestamp.ts";

export const INCLUSION_RECEIPT_DOMAIN = "ink/audit-inclusion/v1\n";

/** The receipt a witness returns for a submitted event. */
export type InclusionReceipt = {
  eventId: string;
  leafIndex: number;
  treeSize: number;
  rootHash: string;
  timestamp: string;
  inclusionProof?: string[];
  serviceSignature: string;
};

export type InclusionReceiptInput = {
  receipt: unknown;
  /** The witness key configured in the agent's card (`thirdPartyAudit.services[].publicKey`). */
  witnessPublicKey: Uint8Array;
  /** The event the receipt is for: its leaf is recomputed and bound to `eventId` (preferred). */
  event?: unknown;
  /** Or a precomputed leaf hash: the lower-assurance path, not bound to an event id. */
  eventHash?: unknown;
  /** A later checkpoint {treeSize, rootHash} of the same log, for the anti-rollback check. */
  laterCheckpoint?: unknown;
  verifier?: Ed25519Verifier;
};

/** Which step refused the receipt (the vectors pin it), and why. */
export type InclusionReceiptResult =
  | { ok: true; receipt: InclusionReceipt; proofChecked: boolean }
  | { ok: false; step: "structure" | "signature" | "proof" | "checkpoint"; reason: string };

/**
 * Verify in order: structure → witness signature → (with `event` or `eventHash`) the proof walk
 * from the recomputed leaf at `leafIndex` to `rootHash` → (with `laterCheckpoint`) no rollback or
 * fork. Without an event or hash the proof is not walked (`proofChecked: false`). Never throws.
 */
export function verifyInclusionReceipt(input: InclusionReceiptInput): InclusionReceiptResult {
  const r = input?.receipt;
  const structure = receiptShape(r);
  if (structure !== null) return { ok: false, step: "structure", reason: structure };
  const receipt = r as InclusionReceipt;
  const signed = receiptSigningInput(receipt);
  const sig = decodeSignature(receipt.serviceSignature);
  // A lone surrogate in a committed field has no UTF-8 form to sign: refused before any verify.
  if (signed === null || sig === null) return { ok: false, step: "signature", reason: "invalid_signature" };
  if (!(input.verifier ?? nobleStrictVerifier)(input.witnessPublicKey, utf8(signed), sig)) return { ok: false, step: "signature", reason: "invalid_signature" };
  let proofChecked = false;
  if (input.event !== undefined || input.eventHash !== undefined) {
    const leaf = leafOf(input, receipt.eventId);
    if (typeof leaf !== "string") return { ok: false, step: "proof", reason: leaf.reason };
    const walk = verifyInclusionProof({ leafHash: leaf, leafIndex: receipt.leafIndex, treeSize: receipt.treeSize, rootHash: receipt.rootHash, proof: receipt.inclusionProof ?? [] });
    if (!walk.ok) return { ok: false, step: "proof", reason: walk.reason };
    proofChecked = true;
  }
  if (input.laterCheckpoint !== undefined) {
    const later = checkLaterCheckpoint(receipt.treeSize, receipt.rootHash, input.laterCheckpoint);
    if (later !== null) return { ok: false, step: "checkpoint", reason: later };
  }
  return { ok: true, receipt, proofChecked };
}

/** The signed text: the domain + JCS({eventId, leafIndex, treeSize, rootHash, timestamp}). */
export function receiptSigningInput(receipt: Pick<InclusionReceipt, "eventId" | "leafIndex" | "treeSize" | "rootHash" | "timestamp">): string | null {
  const { eventId, leafIndex, treeSize, rootHash, timestamp } = receipt;
  const jcs = canonicalize({ eventId, leafIndex, treeSize, rootHash, timestamp });
  return jcs.ok ? INCLUSION_RECEIPT_DOMAIN + jcs.text : null;
}

/** What a witness does (tests, and a future witness): sign the five committed fields. */
export function signInclusionReceipt(receipt: Omit<InclusionReceipt, "serviceSignature">, secretKey: Uint8Array): InclusionReceipt | null {
  const text = receiptSigningInput(receipt);
  return text === null ? null : { ...receipt, serviceSignature: encodeSignature(ed25519Sign(utf8(text), secretKey)) };
}

function receiptShape(r: unknown): string | null {
  if (!isPlainObject(r)) return "receipt is not a JSON object";
  if (typeof r.eventId !== "string" || r.eventId.length < 1 || r.eventId.length > 256) return "eventId: 1..256 characters";
  if (!isTreeSize(r.leafIndex)) return "leafIndex: a safe non-negative integer";
  if (!isTreeSize(r.treeSize) || r.treeSize < 1) return "treeSize: a safe integer ≥ 1 (the tree holds at least this leaf)";
  if (r.leafIndex >= r.treeSize) return "leafIndex must be below treeSize";
  if (!isHash(r.rootHash)) return "rootHash: 64 lowercase hex";
  if (typeof r.timestamp !== "string" || parseTimestamp(r.timestamp) === null) return "timestamp: a strict INK timestamp";
  if (r.inclusionProof !== undefined && !isHashList(r.inclusionProof)) return `inclusionProof: at most ${MAX_CONSISTENCY_PROOF_NODES} hashes of 64 lowercase hex`;
  if (typeof r.serviceSignature !== "string" || r.serviceSignature.length === 0) return "serviceSignature: a non-empty string";
  return null;
}

/** The leaf to walk: the supplied event's (bound to the receipt's eventId), else the given hash. */
function leafOf(input: InclusionReceiptInput, eventId: string): string | { reason: string } {
  if (input.event !== undefined) {
    if (!isPlainObject(input.event) || typeof input.event.id !== "string") return { reason: "invalid_event" };
    if (input.event.id !== eventId) return { reason: "event_id_mismatch" };
    return auditLeafHash(input.event) ?? { reason: "invalid_event" };
  }
  return isHash(input.eventHash) ? input.eventHash : { reason: "invalid_event_hash" };
}
