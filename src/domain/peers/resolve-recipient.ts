import { normalizePrincipal, type AgentCard } from "../../ink/index.ts";
import type { With } from "../context.ts";
import { DomainError } from "../errors.ts";
import { invalidInput } from "../internal/errors.ts";
import { agentIdFromCardUrl } from "./agent-id-from-card-url.ts";
import { didWebCardUrl } from "./internal/did-web.ts";
import { fetchPeerCard, type FetchCardResult } from "./fetch-peer-card.ts";
import { STALE_CARD_GRACE_MS, type PeerCardUpdate } from "./peer-cards.ts";
import { hasSigningSet } from "./has-signing-set.ts";
import { cardOf } from "./card-of.ts";
import { findPeerCard } from "./find-peer-card.ts";
import { isNetworkFailure } from "../internal/retry.ts";
import { principalOf } from "../internal/principal-of.ts";

export interface Recipient {
  principal: string;
  agentId: string;
  card: AgentCard;
  learned: PeerCardUpdate | null;
}

/**
 * The peer an owner addresses: by Agent Card URL (a new contact), or by agent id when the node
 * already knows where its card lives (or it is a did:web). The card is (re)fetched under the
 * discovery-fetch contract when new or stale. Throws a DomainError a client can act on.
 */
export async function resolveRecipient(ctx: With<"node" | "vault" | "peers">, input: { to?: string | undefined; cardUrl?: string | undefined }): Promise<Recipient> {
  const now = ctx.clock.now();
  if (input.cardUrl) {
    // `to` in its canonical spelling (key:z…) names no card's agentId: the card URL's id does, when it is that agent.
    const fromUrl = agentIdFromCardUrl(input.cardUrl);
    const agentId = input.to?.startsWith("key:") ? (fromUrl !== null && principalOf(fromUrl) === input.to ? fromUrl : null) : (input.to ?? fromUrl);
    if (!agentId) throw invalidInput("cardUrl: not an INK card URL (…/ink/v1/<agentId>/agent.json); pass `to` as well");
    const fetched = await fetchPeerCard(ctx, { cardUrl: input.cardUrl, agentId });
    const card = cardOrThrow(fetched, input.cardUrl);
    return learnedRecipient(card.card, card.cardJson, input.cardUrl);
  }
  if (!input.to) throw invalidInput("to or cardUrl is required");
  const principal = principalOf(input.to);
  if (principal === null) throw invalidInput("to: not an agent id (svc:z…, tulpa:z…, ink:z…, key:z… or a DID)");
  const row = findPeerCard(ctx.db, principal);
  const cached = cardOf(row);
  const url = row?.cardUrl ?? (input.to.startsWith("did:web:") ? await didWebCardUrl(ctx.peers.http, input.to) : null);
  if (cached && (row?.expiresAt ?? 0) >= now) return { principal, agentId: cached.agentId, card: cached, learned: null };
  if (!url) throw invalidInput(`unknown agent ${input.to}: pass cardUrl (its Agent Card URL) the first time`);
  const fetched = await fetchPeerCard(ctx, { cardUrl: url, agentId: cached?.agentId ?? row?.agentId ?? input.to });
  if (!fetched.ok && cached && (fetched.reason === "card_continuity" || now - (row?.fetchedAt ?? 0) <= STALE_CARD_GRACE_MS)) {
    return { principal, agentId: cached.agentId, card: cached, learned: { principal, agentId: cached.agentId, refreshAttempt: true } };
  }
  const card = cardOrThrow(fetched, url);
  return learnedRecipient(card.card, card.cardJson, url);
}

function learnedRecipient(card: AgentCard, json: string, cardUrl: string): Recipient {
  const normalized = normalizePrincipal(card.agentId);
  if (!normalized.ok) throw invalidInput("the card's agentId is not a usable principal");
  return {
    principal: normalized.principal,
    agentId: card.agentId,
    card,
    learned: { principal: normalized.principal, agentId: card.agentId, cardUrl, card: { json, signingSet: hasSigningSet(card) }, refreshAttempt: true },
  };
}

function cardOrThrow(fetched: FetchCardResult, url: string): { card: AgentCard; cardJson: string } {
  if (fetched.ok) return fetched;
  const detail = fetched.detail ? ` (${fetched.detail})` : "";
  if (isNetworkFailure(fetched.reason)) throw new DomainError("unavailable", `could not reach ${url}: ${fetched.reason}${detail}`);
  throw invalidInput(`no valid Agent Card at ${url}: ${fetched.reason}${detail}`);
}
