import * as v from "valibot";
import { agentIdPublicKey, authenticateSignedRequest, inspectSignedRequest, normalizePrincipal, resolveSenderKeys } from "../../../ink/index.ts";
import { nativeStrictVerifier } from "../../../security/ed25519-native.ts";
import type { Ctx, With } from "../../context.ts";
import { ownIdentity } from "../../agent/own-identity.ts";
import { cardVisibilityOf } from "../../agent/card-visibility-of.ts";
import { ingestStatements } from "../../../db/ingest-statements.ts";
import { hasRelationship } from "../has-relationship.ts";
import { cardUrlFor } from "../card-url-for.ts";
import { didWebBase } from "./did-web-base.ts";
import { isCardUrlOf } from "../is-card-url-of.ts";
import type { FetchCardResult } from "../fetch-peer-card.ts";
import { ListingRequest, MarketplaceReviewRequest, MAX_LISTING_BYTES, MAX_REVIEW_BYTES, type PeerRefusal, type PeerRequests, type SignedPeerRequest } from "../peer-requests.ts";
import { resolveInboundSenderKeys } from "./resolve-inbound-sender-keys.ts";
import { strangerFetches } from "./stranger-fetches.ts";
import type { Authenticated } from "./authenticated.ts";
import { claimNonceForFetch } from "./nonces.ts";
import { listsKey } from "./lists-key.ts";

type PeerCtx = With<"node" | "vault" | "peers">;
type PendingRequest = Extract<ReturnType<typeof inspectSignedRequest>, { ok: true }>;

/**
 * `POST /ink/v1/{agentId}/agent-card-query` (containment profile, INK §12): `{protocol, type:
 * network.<w>.agent_card_query, from, to, nonce, timestamp}` under an INK transport signature,
 * checked against the keys the node knows for `from` (stored keys only for a nonce already seen).
 */
export async function authenticateCardQuery(ctx: PeerCtx, input: SignedPeerRequest<"agent_card_query">): Promise<Authenticated<"agent_card_query">> {
  const now = ctx.clock.now();
  const own = ownIdentity(ctx.db, ctx.node);
  if (!own || input.pathAgentId !== own.agentId) return { ok: false, reason: "unknown_recipient" };
  const pending = inspectSignedRequest({ body: input.body, authorization: input.authorization, now }, { ownAgentId: own.agentId, path: input.requestPath, wordmark: ctx.node.wordmark, typeSuffix: "agent_card_query" });
  // A private card: anyone the node has no relationship with gets the 404 of an id not hosted here.
  if (cardVisibilityOf(ctx.db) === "private" && (!pending.ok || !hasRelationship(ctx.db, pending.principal, ingestStatements(ctx.db).connectionByPrincipal.get(pending.principal) ?? null))) {
    return { ok: false, reason: "unknown_recipient" };
  }
  if (!pending.ok) return pending;
  return verifyUnderKnownKeys(ctx, pending, {});
}

/**
 * The transport signature under the keys the node knows for `from` (resolveInboundSenderKeys).
 * A replayed nonce resolves keys from what is stored only: it makes the node fetch nothing.
 */
async function verifyUnderKnownKeys<S extends "agent_card_query" | "marketplace_review" | "receipt" | "audit_query">(ctx: PeerCtx, pending: PendingRequest, request: PeerRequests[S]): Promise<Authenticated<S>> {
  const network = claimNonceForFetch(ctx, pending.principal, pending.nonce);
  const resolved = await resolveInboundSenderKeys(ctx, { from: pending.from, principal: pending.principal, keyIdHint: pending.keyIdHint, network });
  const accepted = authenticateSignedRequest(pending, { keys: resolved.keys, verifier: nativeStrictVerifier });
  if (!accepted.ok) return { ...accepted, learned: resolved.learned };
  return { ok: true, principal: accepted.principal, agentId: pending.from, keys: resolved.keys, card: resolved.card, nonce: accepted.nonce, request, learned: resolved.learned };
}

/**
 * `POST /marketplace/extensions/:extensionId/reviews` from another node's agent: the signed-request
 * phase (raw gate, `network.<w>.marketplace_review`, `to` = this agent, header, timestamp, nonce
 * grammar) → body schema → keys for `from` as for a card query (stored ones only for a nonce
 * already seen) → the transport signature. The verb records the nonce and the vote.
 */
export async function authenticateReview(ctx: PeerCtx, input: SignedPeerRequest<"marketplace_review">): Promise<Authenticated<"marketplace_review">> {
  const now = ctx.clock.now();
  const own = ownIdentity(ctx.db, ctx.node);
  if (!own) return { ok: false, reason: "unknown_recipient" };
  const pending = inspectSignedRequest(
    { body: input.body, authorization: input.authorization, now },
    { ownAgentId: own.agentId, path: input.requestPath, wordmark: ctx.node.wordmark, typeSuffix: "marketplace_review", maxBodyBytes: MAX_REVIEW_BYTES },
  );
  if (!pending.ok) return pending;
  const shape = v.safeParse(MarketplaceReviewRequest, pending.body, { abortEarly: true });
  if (!shape.success) return { ok: false, reason: "invalid_review", detail: issueOf(shape.issues[0]) };
  return verifyUnderKnownKeys(ctx, pending, shape.output);
}

/**
 * `POST /ink/v1/receipt` and `POST /ink/v1/audit` (AUDIT §1, §4): protocol messages addressed to
 * this agent (`to`), under an INK transport signature over their path, checked against the keys
 * the node knows for `from` (stored keys only for a nonce already seen), like the card query.
 */
export async function authenticateAddressedMessage<S extends "receipt" | "audit_query">(ctx: PeerCtx, input: SignedPeerRequest<S>): Promise<Authenticated<S>> {
  const now = ctx.clock.now();
  const own = ownIdentity(ctx.db, ctx.node);
  if (!own) return { ok: false, reason: "unknown_recipient" };
  const pending = inspectSignedRequest({ body: input.body, authorization: input.authorization, now }, { ownAgentId: own.agentId, path: input.requestPath, wordmark: ctx.node.wordmark, typeSuffix: input.scheme });
  if (!pending.ok) return pending;
  let request: PeerRequests[S];
  if (input.scheme === "audit_query") {
    const messageId = pending.body.messageId;
    if (typeof messageId !== "string" || messageId.length === 0 || messageId.length > 256) return { ok: false, reason: "invalid_envelope", detail: "messageId: a string of 1 to 256 characters" };
    request = { messageId } as PeerRequests[S];
  } else request = pending.body as PeerRequests[S];
  return verifyUnderKnownKeys(ctx, pending, request);
}

/**
 * `POST /ink/v1/directory/listings` (docs/decisions/directory-listings.md): signed-request phase 1
 * (raw gate, type, protocol, `to`, header, timestamp, nonce grammar) → body schema → not our own
 * agent → the card URL is an INK card URL for `from` (a did:web's own host) → a replayed nonce is
 * refused before it costs a fetch → the card fetched by us through the SSRF gate under the
 * discovery-fetch contract and the stranger-fetch budgets, bound to the id (only keys rooted in it
 * count) → the transport signature under THAT card's keys (authority rule, live auth).
 */
export async function authenticateListing(ctx: PeerCtx, input: SignedPeerRequest<"directory_listing">): Promise<Authenticated<"directory_listing">> {
  const now = ctx.clock.now();
  const own = ownIdentity(ctx.db, ctx.node);
  if (!own) return { ok: false, reason: "unknown_recipient" };
  const pending = inspectSignedRequest(
    { body: input.body, authorization: input.authorization, now },
    { ownAgentId: own.agentId, path: input.requestPath, wordmark: ctx.node.wordmark, typeSuffix: "directory_listing", maxBodyBytes: MAX_LISTING_BYTES },
  );
  if (!pending.ok) return pending;
  const shape = v.safeParse(ListingRequest, pending.body, { abortEarly: true });
  if (!shape.success) return { ok: false, reason: "invalid_listing", detail: issueOf(shape.issues[0]) };
  const request = shape.output;
  const self = normalizePrincipal(own.agentId);
  if (self.ok && pending.principal === self.principal) {
    return { ok: false, reason: "self_listing", detail: "this is the directory's own agent; its owner publishes it through the owner API" };
  }
  const urlProblem = cardUrlProblem(request.from, request.cardUrl);
  if (urlProblem) return urlProblem;
  // Every check that needs no key has passed; a replayed nonce is refused before it costs a fetch.
  // The signature needs the card (the signer may be a key only the card names), so the fetch comes
  // first, under the stranger-fetch budgets. The card comes back bound to `from` (bindAgentCard):
  // only keys rooted in the id sign for it, so a request that verifies is the agent's own.
  // A copy of this request in flight is a replay too (its nonce is claimed before any fetch).
  if (!claimNonceForFetch(ctx, pending.principal, pending.nonce)) return { ok: false, reason: "nonce_replay" };
  // A card verified a moment ago decides first (review of issue 21: thirty forgeries naming an agent
  // spent its host's fetch budget, then its own request was refused): a request signed by a key that
  // card lists, or with no key id, that does not verify is a forgery and costs no fetch; one that
  // verifies is the agent's own, and its fresh card is fetched outside the strangers' budgets (its
  // per-requester limit still counts). A key id the card does not list may be a new key: fetched
  // again, once per key id and at most twice a minute per card URL.
  const card = { cardUrl: request.cardUrl, agentId: request.from };
  const fetches = strangerFetches(ctx);
  const recent = fetches.recent(card);
  let theirs = false;
  if (recent) {
    const verdict = authenticateSignedRequest(pending, { keys: resolveSenderKeys({ card: recent, agentId: request.from }), verifier: nativeStrictVerifier });
    if (!verdict.ok && (pending.keyIdHint === null || listsKey(recent, pending.keyIdHint) || !fetches.mayRecheck(card.cardUrl, pending.keyIdHint))) return verdict;
    theirs = verdict.ok;
  }
  const fetched = await (theirs ? fetches.cardForAgent(card) : fetches.card(card));
  if (!fetched.ok) return cardFailure(ctx, request, fetched);
  const keys = resolveSenderKeys({ card: fetched.card, agentId: request.from });
  const accepted = authenticateSignedRequest(pending, { keys, verifier: nativeStrictVerifier });
  if (!accepted.ok) return accepted;
  return { ok: true, principal: accepted.principal, agentId: request.from, keys, card: fetched.card, nonce: accepted.nonce, request, learned: null };
}

/**
 * The card URL must be an INK discovery URL for `from` (…/ink/v1/<from>/agent.json), so the
 * directory never fetches arbitrary URLs for strangers; a did:web's card must be on its own host.
 */
function cardUrlProblem(from: string, cardUrl: string): PeerRefusal | null {
  if (!isCardUrlOf(cardUrl, from)) return { ok: false, reason: "card_url_mismatch", detail: "cardUrl must be the INK card URL of `from` (…/ink/v1/<agentId>/agent.json)" };
  const didBase = didWebBase(from);
  if (didBase) return cardUrl === cardUrlFor(didBase, from) ? null : { ok: false, reason: "card_url_mismatch", detail: "a did:web agent's card must be at its own host" };
  if (agentIdPublicKey(from) === null) return { ok: false, reason: "unsupported_principal", detail: "only key-derived agent ids and did:web can be listed" };
  return null;
}

/**
 * Whatever went wrong with the card (unreachable, refused by the SSRF gate, a status, not a card,
 * another id, a bad proof, not bound to the id, over the fetch budget), the requester hears INK's
 * generic `unresolvable_sender_key` only (INK §12: never reveal fetch-vs-verification failure):
 * the details would make the directory an oracle for internal names and other hosts' answers.
 * They go to the log. A listing agent retries later (push-to-directory treats it as transient).
 */
function cardFailure(ctx: Pick<Ctx, "log">, request: { from: string; cardUrl: string }, fetched: Extract<FetchCardResult, { ok: false }>): PeerRefusal {
  ctx.log.info("listing card not usable", { from: request.from, cardUrl: request.cardUrl, reason: fetched.reason, httpStatus: fetched.httpStatus, detail: fetched.detail });
  return { ok: false, reason: "unresolvable_sender_key" };
}

function issueOf(issue: v.BaseIssue<unknown> | undefined): string {
  if (!issue) return "invalid body";
  const path = issue.path?.map((p) => String(p.key)).join(".");
  return path ? `${path}: ${issue.message}` : issue.message;
}
