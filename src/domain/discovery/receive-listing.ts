import * as v from "valibot";
import { transaction } from "../../db/client.ts";
import { agentIdPublicKey, authenticateSignedRequest, inspectSignedRequest, resolveSenderKeys, type AgentCard, type InboundReason } from "../../ink/index.ts";
import { nativeStrictVerifier } from "../../security/ed25519-native.ts";
import type { Ctx, With } from "../context.ts";
import { insertNonce, isNonceSeen } from "../federation/inbound-nonces.ts";
import { ownIdentity } from "../federation/own-identity.ts";
import { agentIdFromCardUrl, cardUrlFor, didWebBase } from "../peers/card-url.ts";
import type { FetchCardResult } from "../peers/fetch-peer-card.ts";
import { strangerFetches } from "../peers/stranger-fetch.ts";
import { listingProfileFromCard, optedIn } from "./card-listing.ts";
import { endListing, findListing, saveListing } from "./listings.ts";
import { ownPrincipal } from "./own-publication.ts";

export const MAX_LISTING_BYTES = 65_536;
const PER_REQUESTER = { limit: 10, windowMs: 60_000 };

/**
 * The directory-listing request (docs/decisions/directory-listings.md): strict, covered by the
 * INK transport signature only. `type` is checked by the signed-request phase (dual spelling).
 */
export const ListingRequest = v.strictObject({
  protocol: v.literal("ink/0.1"),
  type: v.string(),
  action: v.picklist(["publish", "unpublish"], "action: publish or unpublish"),
  from: v.pipe(v.string(), v.minLength(1), v.maxLength(256)),
  to: v.pipe(v.string(), v.minLength(1), v.maxLength(512)),
  cardUrl: v.pipe(v.string(), v.maxLength(2048), v.startsWith("https://", "cardUrl: an https URL")),
  nonce: v.string(),
  timestamp: v.string(),
});

export type ListingReason =
  | InboundReason
  | "unknown_recipient"
  | "rate_limited"
  | "invalid_listing"
  | "self_listing"
  | "unsupported_principal"
  | "card_url_mismatch"
  | "discovery_not_enabled";

export type ListingOutcome =
  | { ok: true; status: "listed" | "delisted"; agentId: string; handle: string | null; listedAt: string | null; nextValidationAt: string | null }
  | { ok: false; reason: ListingReason; detail?: string; retryAfterSeconds?: number };

/**
 * `POST /ink/v1/directory/listings`: another agent asks this node to list or delist it. Order:
 * signed-request phase 1 (raw gate, type, protocol, `to`, header, timestamp, nonce grammar) →
 * body schema → not our own agent → per-requester limit → the card URL is an INK card URL for
 * `from` (a did:web's own host) → the card fetched by us through the SSRF gate under the
 * discovery-fetch contract (agentId === from) and bound to the id (only keys rooted in it count)
 * → the transport signature under THAT card's keys (authority rule, live auth) → opt-in
 * (publish) → nonce recorded with the write.
 */
export async function receiveListing(
  ctx: With<"node" | "vault" | "peers" | "limiter" | "directory">,
  input: { body: Uint8Array; authorization: string | null; requestPath: string },
): Promise<ListingOutcome> {
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
  if (pending.principal === ownPrincipal(own.agent, ctx.node.wordmark)) {
    return { ok: false, reason: "self_listing", detail: "this is the directory's own agent; its owner publishes it through the owner API" };
  }

  const urlProblem = cardUrlProblem(request.from, request.cardUrl);
  if (urlProblem) return urlProblem;
  // Every check that needs no key has passed; a replayed nonce is refused before it costs a fetch.
  // The signature needs the card (the signer may be a key only the card names), so the fetch comes
  // first, under the stranger-fetch budgets. The card comes back bound to `from` (bindAgentCard):
  // only keys rooted in the id sign for it, so a request that verifies is the agent's own.
  if (isNonceSeen(ctx.db, pending.principal, pending.nonce)) return { ok: false, reason: "nonce_replay" };
  const fetched = await strangerFetches(ctx).card({ cardUrl: request.cardUrl, agentId: request.from });
  if (!fetched.ok) return cardFailure(ctx, request, fetched);
  const card = fetched.card;
  const accepted = authenticateSignedRequest(pending, { keys: resolveSenderKeys({ card, agentId: request.from }), verifier: nativeStrictVerifier });
  if (!accepted.ok) return accepted;
  if (request.action === "publish" && !optedIn(card)) {
    return { ok: false, reason: "discovery_not_enabled", detail: "the card's discovery descriptor must say enabled: true with scope public" };
  }
  return record(ctx, { principal: accepted.principal, nonce: accepted.nonce, action: request.action, agentId: request.from, cardUrl: request.cardUrl, card }, now, ctx.directory.revalidateMs);
}

/**
 * The write, in one transaction: the nonce (a conflict is a replay), then the per-requester limit —
 * charged only now that the request is authenticated and fresh, so requests forged in an agent's
 * name cannot spend its budget (INK §9 step 11 order: nonce, then rate limits; a limited request
 * keeps its nonce spent) — then the listing itself.
 */
function record(
  ctx: With<"limiter">,
  r: { principal: string; nonce: string; action: "publish" | "unpublish"; agentId: string; cardUrl: string; card: AgentCard },
  now: number,
  revalidateMs: number,
): ListingOutcome {
  const result = transaction(ctx.db, (tx) => {
    if (!insertNonce(tx, r.principal, r.nonce, now)) return null;
    const budget = ctx.limiter.consume("directory-listing", r.principal, PER_REQUESTER, now);
    if (!budget.allowed) return budget;
    if (r.action === "publish") {
      return saveListing(tx, { principal: r.principal, agentId: r.agentId, cardUrl: r.cardUrl, source: "remote", profile: listingProfileFromCard(r.card) }, now, now + revalidateMs);
    }
    const existing = findListing(tx, r.principal);
    return existing?.source === "remote" && existing.status === "listed" ? endListing(tx, existing.id, "delisted", now) : (existing ?? undefined);
  });
  if (result === null) return { ok: false, reason: "nonce_replay" };
  if (result !== undefined && "allowed" in result) return { ok: false, reason: "rate_limited", retryAfterSeconds: result.retryAfterSeconds };
  ctx.log.info(r.action === "publish" ? "directory listing added" : "directory listing removed", { principal: r.principal });
  const listed = result?.status === "listed" && r.action === "publish";
  return {
    ok: true,
    status: listed ? "listed" : "delisted",
    agentId: r.agentId,
    handle: result?.handle ?? null,
    listedAt: listed ? new Date(result.listedAt).toISOString() : null,
    nextValidationAt: listed && result.nextValidationAt !== null ? new Date(result.nextValidationAt).toISOString() : null,
  };
}

/**
 * The card URL must be an INK discovery URL for `from` (…/ink/v1/<from>/agent.json), so the
 * directory never fetches arbitrary URLs for strangers; a did:web's card must be on its own host.
 */
function cardUrlProblem(from: string, cardUrl: string): ListingOutcome | null {
  if (agentIdFromCardUrl(cardUrl) !== from) return { ok: false, reason: "card_url_mismatch", detail: "cardUrl must be the INK card URL of `from` (…/ink/v1/<agentId>/agent.json)" };
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
function cardFailure(ctx: Ctx, request: { from: string; cardUrl: string }, fetched: Extract<FetchCardResult, { ok: false }>): ListingOutcome {
  ctx.log.info("listing card not usable", { from: request.from, cardUrl: request.cardUrl, reason: fetched.reason, httpStatus: fetched.httpStatus, detail: fetched.detail });
  return { ok: false, reason: "unresolvable_sender_key" };
}

function issueOf(issue: v.BaseIssue<unknown> | undefined): string {
  if (!issue) return "invalid body";
  const path = issue.path?.map((p) => String(p.key)).join(".");
  return path ? `${path}: ${issue.message}` : issue.message;
}
