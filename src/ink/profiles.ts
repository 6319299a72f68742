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
