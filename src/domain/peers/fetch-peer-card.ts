import { transaction } from "../../db/client.ts";
import {
  authenticateAgentCard,
  bindAgentCard,
  checkCardFetchResponse,
  isSignedCard,
  normalizePrincipal,
  type AcceptedCardProof,
  type AgentCard,
  type CardBindingBasis,
  type CardFetchFailure,
  type CardTrustFailure,
  type ContinuityFailure,
  type DidWebResolution,
} from "../../ink/index.ts";
import type { PeerFailureReason, PeerHttp } from "../../adapters/peer-http.ts";
import { nativeStrictVerifier } from "../../security/ed25519-native.ts";
import type { Ctx, With } from "../context.ts";
import { recordEvent } from "../internal/events.ts";
import { didWebVerificationKeys } from "./internal/did-web.ts";
import { queryPeerCard } from "./internal/query-peer-card.ts";
import { cardOf } from "./card-of.ts";
import { findPeerCard } from "./find-peer-card.ts";

export type FetchCardResult =
  | { ok: true; card: AgentCard; cardJson: string; proof: AcceptedCardProof; basis: CardBindingBasis }
  | {
      ok: false;
      reason: CardFetchFailure | PeerFailureReason | "card_continuity" | "card_identity_mismatch";
      detail?: string;
      httpStatus?: number;
      /** Set for `card_continuity`: the stored card stays the one to use (INK §13). */
      continuity?: ContinuityFailure;
    };

const CARD_TIMEOUT_MS = 5_000;
const CONTINUITY: ReadonlySet<CardTrustFailure> = new Set<ContinuityFailure>(["unsigned_after_authenticated", "continuity_version_regression", "continuity_unreachable_key"]);

/**
 * GET a peer's card and decide whether it may be used, in the one place every card fetch goes
 * through: the discovery-fetch contract (INK §12: SSRF gate, no redirects, 64 KiB, 5 s, status,
 * content type, schema, agentId binding, URL fields, and a present proof must verify), then the
 * whole INK §13 decision (`authenticateAgentCard`): rooting (a did:web signer is anchored in its
 * DID document, fetched only for a signed did:web card), the ratchet and continuity against the
 * stored authenticated card. Phase C is not enforced (docs/decisions/ink-card-signature.md). A
 * continuity violation keeps the stored card: it is logged and recorded as
 * `card.continuity_violation`; an unanchored did:web signature is recorded as `card.anchor_unverified`.
 * Last, the identity binding (INK §2.1, §13: `bindAgentCard`): the card returned and stored keeps only
 * the keys it may bind to its id, and a key-derived card that does not name its genesis key is refused.
 */
export async function fetchPeerCard(ctx: With<"node" | "vault" | "peers">, input: { cardUrl: string; agentId: string }): Promise<FetchCardResult> {
  let res = await ctx.peers.http.request(input.cardUrl, { headers: { accept: "application/json" }, timeoutMs: CARD_TIMEOUT_MS, maxBytes: 65_536 });
  // A connection's 404 may be a private card: the signed card query still answers us (query-peer-card.ts).
  if (res.ok && res.status === 404) res = (await queryPeerCard(ctx, input)) ?? res;
  if (!res.ok) return { ok: false, reason: res.reason, detail: res.detail };
  const checked = checkCardFetchResponse({
    status: res.status,
    contentType: res.headers.get("content-type"),
    contentLength: res.headers.get("content-length"),
    body: res.body,
    requestedAgentId: input.agentId,
    resolutionDid: null,
    allowPrivateHosts: ctx.peers.allowPrivatePeers,
    proof: { verifier: nativeStrictVerifier },
  });
  if (!checked.ok) {
    if (checked.reason === "invalid_card_proof") ctx.log.warn("peer card refused: invalid card proof", { agentId: input.agentId, cardUrl: input.cardUrl, issue: checked.issue });
    return { ok: false, reason: checked.reason, httpStatus: res.status, ...(checked.issue ? { detail: checked.issue } : {}) };
  }
  const principal = normalizePrincipal(input.agentId);
  const stored = principal.ok ? cardOf(findPeerCard(ctx.db, principal.principal)) : null;
  const trust = authenticateAgentCard(checked.card, {
    agentId: input.agentId,
    // Only a stored card that was authenticated (signed) makes this fetch warm (INK §13 ratchet).
    cachedCard: isSignedCard(stored) ? stored : null,
    didWeb: checked.proof.kind === "signed" && input.agentId.startsWith("did:web:") ? await resolveDidWeb(ctx.peers.http, input.agentId) : null,
    enforcePhaseC: false,
    verifier: nativeStrictVerifier,
  });
  if (!trust.ok) {
    if (CONTINUITY.has(trust.reason) && principal.ok && stored !== null) return continuityViolation(ctx, { ...trust, reason: trust.reason as ContinuityFailure }, principal.principal, stored, checked.card, input);
    ctx.log.warn("peer card refused: invalid card proof", { agentId: input.agentId, cardUrl: input.cardUrl, issue: `${trust.reason}: ${trust.issue}` });
    return { ok: false, reason: "invalid_card_proof", detail: `${trust.reason}: ${trust.issue}`, httpStatus: res.status };
  }
  if (trust.reason === "signed_authenticated" && trust.auditEvent === "card.anchor_unverified") {
    ctx.log.info("did:web document unavailable: card signature verified but not anchored", { agentId: input.agentId });
    transaction(ctx.db, (tx) => recordEvent(tx, "card.anchor_unverified", ctx.clock.now(), { ...(principal.ok ? { peerPrincipal: principal.principal } : {}), cardUrl: input.cardUrl }));
  }
  const bound = bindAgentCard(checked.card, trust.proof);
  if (!bound.ok) {
    ctx.log.warn("peer card refused: not bound to its agent id", { agentId: input.agentId, cardUrl: input.cardUrl, issue: bound.issue });
    return { ok: false, reason: bound.reason, detail: bound.issue, httpStatus: res.status };
  }
  return { ok: true, card: bound.card, cardJson: JSON.stringify(bound.card), proof: trust.proof, basis: bound.basis };
}

/** A did:web's document keys (INK §13 anchoring), or that the document could not be had. */
async function resolveDidWeb(http: PeerHttp, did: string): Promise<DidWebResolution> {
  const keys = await didWebVerificationKeys(http, did);
  return keys === null ? { status: "unavailable" } : { status: "resolved", keys };
}

function continuityViolation(
  ctx: Ctx,
  continuity: { reason: ContinuityFailure; issue: string },
  principal: string,
  cached: AgentCard,
  card: AgentCard,
  input: { cardUrl: string; agentId: string },
): Extract<FetchCardResult, { ok: false }> {
  const now = ctx.clock.now();
  const facts = {
    reason: continuity.reason,
    issue: continuity.issue,
    cardUrl: input.cardUrl,
    cachedKeySetVersion: cached.keySetVersion ?? null,
    fetchedKeySetVersion: card.keySetVersion ?? null,
  };
  ctx.log.warn("peer card refused: continuity violation; the stored card stays in use", { peer: principal, ...facts });
  transaction(ctx.db, (tx) => recordEvent(tx, "card.continuity_violation", now, { peerPrincipal: principal, ...facts }));
  return { ok: false, reason: "card_continuity", detail: `${continuity.reason}: ${continuity.issue}`, httpStatus: 200, continuity: continuity.reason };
}
