/**
 * Kith's INK core, optional profiles: what a node needs only for a capability it advertises
 * (docs/decisions/ink-profiles.md). Same rules as `index.ts`: pure functions, no clock reads, no
 * I/O; time, keys, replay and revocation state are parameters; results are discriminated unions
 * whose reasons are INK's codes. The base protocol is `./index.ts`.
 */

// ── Containment ──────────────────────────────────────────────────────────────────────────────
/**
 * A delivered challenge / rejection / resolution: schema, then the transport signature (H5, H6).
 * @example verifySignedHandshake({ signInput, signature, publicKey }, "tulpa") // { ok: true, kind: "challenge", message }
 */
export { type SignedHandshakeResult, verifySignedHandshake } from "./handshake.ts";

// ── Audit (witness artifacts a node consumes) ───────────────────────────────────────────────
/**
 * RFC 6962 inclusion proofs and the later-checkpoint cross-check (AUDIT §6).
 * @example verifyInclusionProof({ leafHash, leafIndex: 1, treeSize: 4, rootHash, proof }) // { ok: true }
 */
export { type InclusionInput, type InclusionResult, verifyInclusionProof, checkLaterCheckpoint } from "./merkle.ts";
/**
 * Witness inclusion receipts: structure → service signature → proof walk of the recomputed leaf → checkpoint.
 * @example verifyInclusionReceipt({ receipt, witnessPublicKey, event }) // { ok: true, receipt, proofChecked: true }
 */
export {
  type InclusionReceipt,
  type InclusionReceiptInput,
  type InclusionReceiptResult,
  INCLUSION_RECEIPT_DOMAIN,
  receiptSigningInput,
  signInclusionReceipt,
  verifyInclusionReceipt,
} from "./inclusion-receipt.ts";
/**
 * A witness's signed audit-query response: bindings, signature, scope, proofs, agent signatures.
 * @example verifyAuditQueryResponse({ response, witnessPublicKey, expectedMessageId, expectedRequester, agentKeys, wordmark }) // { ok: true, events }
 */
export {
  type AuditQueryResponseInput,
  type AuditQueryResponseResult,
  type AuditQueryResponseFailure,
  AUDIT_QUERY_RESPONSE_DOMAIN,
  signAuditQueryResponse,
  verifyAuditQueryResponse,
} from "./audit-query-response.ts";
