/**
 * Kith's INK core, optional profiles: what a node needs only for a capability it advertises
 * (docs/decisions/ink-profiles.md). Same rules as `index.ts`: pure functions, no clock reads, no
 * I/O; time, keys, replay and revocation state are parameters; results are discriminated unions
 * whose reasons are INK's codes. The base protocol is `./index.ts`; a node that speaks only the
 * base protocol imports nothing from here.
 */

// ── First contact (INK §15) ──────────────────────────────────────────────────────────────────
/**
 * The first-contact transcript decision (INK §15).
 * @example verifyFirstContact({ cardFetch, clientSupportedVersions, now, nonceStore, request, response, wordmark })
 */
export { type FirstContactInput, type FirstContactResult, type FirstContactStep, type SignedLeg, verifyFirstContact } from "./first-contact.ts";

// ── Containment: handshakes (INK §17) ───────────────────────────────────────────────────────
/**
 * Handshake challenge / rejection / resolution messages (INK §17).
 * @example validateHandshakeMessage(body, "svc") // { ok: true, kind: "challenge", message }
 */
export { type HandshakeKind, type HandshakeResult, HandshakeChallenge, HandshakeRejection, HandshakeResolution, validateHandshakeMessage } from "./handshake.ts";
/**
 * A delivered challenge / rejection / resolution: schema, then the transport signature (H5, H6).
 * @example verifySignedHandshake({ signInput, signature, publicKey }, "tulpa") // { ok: true, kind: "challenge", message }
 */
export { type SignedHandshakeResult, verifySignedHandshake } from "./handshake.ts";

// ── Audit: the event chain (AUDIT) and the witness artifacts a node consumes ────────────────
/**
 * Hash-chained audit events, the signed audit response gate, and receipt message hashes.
 * @example verifyAuditEventChain(events) // { ok: true, lastHash } | { ok: false, reason: "sequence_fork", index }
 */
export {
  type AuditEvent,
  type AuditResponse,
  type ChainResult as AuditChainResult,
  type ChainFailure as AuditChainFailure,
  type AuditResponseInput,
  type AuditResponseFailure,
  auditEventCanonical,
  auditEventHash,
  auditLeafHash,
  signAuditEvent,
  verifyAuditEventSignature,
  verifyAuditEventChain,
  signAuditResponse,
  verifyAuditResponse,
  messageHash,
} from "./audit.ts";
/**
 * Delivery receipts (AUDIT §1): build and sign one for a message received, verify one for a message sent.
 * @example verifyReceipt(body, { from: bob, to: alice, messageId, sentMessage, keys, wordmark: "tulpa" }) // { ok: true, receipt } | { ok: false, reason: "message_hash_mismatch" }
 */
export { type Disposition, type ReceiptCheck, type ReceiptFailure, type ReceiptInput, DISPOSITIONS, Receipt, buildReceipt, verifyReceipt, wantsReceipt } from "./receipt.ts";
/**
 * RFC 6962 consistency proofs for witness logs (AUDIT §6, witness profile): is the old tree an
 * append-only prefix of the new one? Sizes are safe integers, hashes 64 lowercase hex.
 * @example verifyConsistencyProof({ first: 4, firstRoot, second: 8, secondRoot, proof: [h] }) // { ok: true } | { ok: false, reason: "second_root_mismatch" }
 */
export {
  type ConsistencyInput,
  type ConsistencyResult,
  type ConsistencyFailure,
  EMPTY_TREE_ROOT,
  MAX_CONSISTENCY_PROOF_NODES,
  verifyConsistencyProof,
} from "./merkle.ts";
/**
 * Witness checkpoint bodies (C2SP tlog-checkpoint as INK pins it): `origin\nsize\nroothex\n`.
 * @example parseCheckpoint("log.example/ink\n5\n6b7a…\n") // { ok: true, checkpoint: { origin, treeSize: 5, rootHash } }
 * @example formatCheckpoint({ origin: "log.example/ink", treeSize: 5, rootHash }) // "log.example/ink\n5\n6b7a…\n"
 */
export {
  type Checkpoint,
  type CheckpointResult,
  type CheckpointFailure,
  MAX_CHECKPOINT_BODY,
  MAX_CHECKPOINT_ORIGIN,
  parseCheckpoint,
  formatCheckpoint,
} from "./checkpoint.ts";
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

// ── Authorization ("Sign in with INK") ──────────────────────────────────────────────────────
/**
 * Shared by grants and chains: INK's reasons, lifetime ceilings, the replay store they read and record.
 * @example verifyAuthorizationGrant({ raw, issuerKeys, audience, now, replay, wordmark }) // { ok: false, reason: "replay", issue }
 */
export {
  type GrantReason,
  type GrantFailure,
  type GrantReplayStore,
  type PresentationContext,
  MAX_GRANT_LIFETIME_MS,
  MAX_LINK_LIFETIME_MS,
} from "./grant-kit.ts";
/**
 * A relying party's sign-in challenge: bare-host did:web origin, registry scopes, literal redirect rule.
 * @example verifyAuthorizationChallenge({ raw, rpKeys, now, wordmark }) // { ok: true, challenge, grantId, origin }
 */
export {
  type ChallengeInput,
  type ChallengeResult,
  AuthorizationChallenge,
  SIGN_IN_SCOPES,
  deriveChallengeGrantId,
  rpOrigin,
  signAuthorizationChallenge,
  verifyAuthorizationChallenge,
} from "./authorization-challenge.ts";
/**
 * Scoped, audience-bound, single-use grants of at most ten minutes.
 * @example signAuthorizationGrant({ issuer, subject, audience, scope, grantId, issuedAt, expiresAt }, sk, "svc")
 */
export { type GrantInput, type GrantResult, AuthorizationGrant, signAuthorizationGrant, verifyAuthorizationGrant } from "./authorization-grant.ts";

// ── Delegation ───────────────────────────────────────────────────────────────────────────────
/**
 * Chains of 2..4 links: parent digests, continuity, attenuation with the `delegation.extend` gate.
 * @example verifyDelegationChain({ chain, issuerKeys: (issuer, i) => keysOf(issuer), audience, now, replay, wordmark })
 */
export {
  type ChainInput,
  type ChainResult,
  AuthorizationChain,
  DelegationLink,
  DELEGATION_EXTEND,
  MAX_CHAIN_LINKS,
  delegationLinkDigest,
  isAttenuation,
  signDelegationLink,
  verifyDelegationChain,
} from "./delegation-chain.ts";
/**
 * Kith's extension delegation token: one INK root link as `<payload>.<signature>` (SPEC checks 1–2).
 * @example verifyDelegationToken({ token, issuerKeys: ownKeys, audience: ownAgentId, now, wordmark }) // { ok: true, link, subjectKey }
 */
export {
  type DelegationTokenInput,
  type DelegationTokenResult,
  MAX_DELEGATION_TOKEN_CHARS,
  decodeDelegationToken,
  encodeDelegationToken,
  verifyDelegationToken,
} from "./delegation-token.ts";
