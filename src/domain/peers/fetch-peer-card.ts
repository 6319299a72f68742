import { transaction } from "../../db/client.ts";
import {
  checkCardContinuity,
  checkCardFetchResponse,
  normalizePrincipal,
  verifyAgentCardProof,
  type AcceptedCardProof,
  type AgentCard,
  type CardFetchFailure,
  type ContinuityFailure,
  type Ed25519Verifier,
} from "../../ink/index.ts";
import type { PeerFailureReason, PeerHttp } from "../../security/peer-http.ts";
import type { Ctx } from "../context.ts";
import { recordEvent } from "../messages/store.ts";
import type { FederationDeps } from "../federation/deps.ts";
import { didWebVerificationKeys } from "./did-web.ts";
import { queryPeerCard } from "./query-peer-card.ts";
import { cardOf, findPeerCard } from "./peer-cards.ts";

export type FetchCardResult =
  | { ok: true; card: AgentCard; cardJson: string; proof: AcceptedCardProof }
  | {
      ok: false;
      reason: CardFetchFailure | PeerFailureReason | "card_continuity";
      detail?: string;
      httpStatus?: number;
      /** Set for `card_continuity`: the stored card stays the one to use (INK §13). */
      continuity?: ContinuityFailure;
    };

export type CardFetchDeps = { http: PeerHttp; verifier: Ed25519Verifier; allowPrivatePeers: boolean };

function isFederation(deps: CardFetchDeps): deps is CardFetchDeps & FederationDeps {
  return "vault" in deps && "node" in deps;
}

const CARD_TIMEOUT_MS = 5_000;

/**
 * GET a peer's card and decide whether it may be used, in the one place every card fetch goes
 * through: the discovery-fetch contract (INK §12: SSRF gate, no redirects, 64 KiB, 5 s, status,
 * content type, schema, agentId binding, URL fields), the card proof (INK §13: a present
 * `cardSignature` must verify and be rooted; a did:web signer must be a key of its DID document;
 * an invalid proof rejects, it is never read as unsigned), then continuity with the card stored
 * for that principal (unsigned after signed, rollback, unreachable signer). A continuity violation
 * keeps the stored card: it is logged and recorded as a `card.continuity_violation` event.
 */
export async function fetchPeerCard(ctx: Ctx, deps: CardFetchDeps, input: { cardUrl: string; agentId: string }): Promise<FetchCardResult> {
  let res = await deps.http.request(input.cardUrl, { headers: { accept: "application/json" }, timeoutMs: CARD_TIMEOUT_MS, maxBytes: 65_536 });
  // A connection's 404 may be a private card: the signed card query still answers us (query-peer-card.ts).
  if (res.ok && res.status === 404 && isFederation(deps)) res = (await queryPeerCard(ctx, deps, input)) ?? res;
  if (!res.ok) return { ok: false, reason: res.reason, detail: res.detail };
  const checked = checkCardFetchResponse({
    status: res.status,
    contentType: res.headers.get("content-type"),
    contentLength: res.headers.get("content-length"),
    body: res.body,
    requestedAgentId: input.agentId,
    resolutionDid: null,
    allowPrivateHosts: deps.allowPrivatePeers,
    proof: { verifier: deps.verifier },
  });
  if (!checked.ok) {
    if (checked.reason === "invalid_card_proof") ctx.log.warn("peer card refused: invalid card proof", { agentId: input.agentId, cardUrl: input.cardUrl, issue: checked.issue });
    return { ok: false, reason: checked.reason, httpStatus: res.status, ...(checked.issue ? { detail: checked.issue } : {}) };
  }
  let proof = checked.proof;
  if (proof.kind === "signed" && proof.anchor === "unanchored" && input.agentId.startsWith("did:web:")) {
    const anchored = await anchorDidWeb(ctx, deps, checked.card, input);
    if (!anchored.ok) return anchored;
    proof = anchored.proof;
  }
  const violation = continuityViolation(ctx, checked.card, input, deps.verifier);
  if (violation) return violation;
  return { ok: true, card: checked.card, cardJson: JSON.stringify(checked.card), proof };
}

/**
 * INK §13 did:web rooting: the signer must be a verification method of the DID document. When the
 * document cannot be fetched the card stays accepted but unanchored (the reference's
 * resolver-unavailable branch; failing closed there is Phase C): docs/decisions/ink-card-signature.md.
 */
async function anchorDidWeb(ctx: Ctx, deps: CardFetchDeps, card: AgentCard, input: { cardUrl: string; agentId: string }): Promise<{ ok: true; proof: AcceptedCardProof } | Extract<FetchCardResult, { ok: false }>> {
  const didWebKeys = await didWebVerificationKeys(deps.http, input.agentId);
  if (didWebKeys === null) {
    ctx.log.info("did:web document unavailable: card signature verified but not anchored", { agentId: input.agentId });
    return { ok: true, proof: verifyAgentCardProof(card, { verifier: deps.verifier }) as AcceptedCardProof };
  }
  const anchored = verifyAgentCardProof(card, { verifier: deps.verifier, didWebKeys });
  if (anchored.ok) return { ok: true, proof: anchored };
  ctx.log.warn("peer card refused: invalid card proof", { agentId: input.agentId, cardUrl: input.cardUrl, issue: anchored.issue });
  return { ok: false, reason: "invalid_card_proof", detail: `${anchored.reason}: ${anchored.issue}`, httpStatus: 200 };
}

function continuityViolation(ctx: Ctx, card: AgentCard, input: { cardUrl: string; agentId: string }, verifier: Ed25519Verifier): Extract<FetchCardResult, { ok: false }> | null {
  const principal = normalizePrincipal(input.agentId);
  if (!principal.ok) return null;
  const cached = cardOf(findPeerCard(ctx.db, principal.principal));
  if (cached === null) return null;
  const continuity = checkCardContinuity(cached, card, { verifier });
  if (continuity.ok) return null;
  const now = ctx.clock.now();
  const facts = {
    reason: continuity.reason,
    issue: continuity.issue,
    cardUrl: input.cardUrl,
    cachedKeySetVersion: cached.keySetVersion ?? null,
    fetchedKeySetVersion: card.keySetVersion ?? null,
  };
  ctx.log.warn("peer card refused: continuity violation; the stored card stays in use", { peer: principal.principal, ...facts });
  transaction(ctx.db, (tx) => recordEvent(tx, "card.continuity_violation", now, { peerPrincipal: principal.principal, ...facts }));
  return { ok: false, reason: "card_continuity", detail: `${continuity.reason}: ${continuity.issue}`, httpStatus: 200, continuity: continuity.reason };
}
