import type { PeerHttp } from "../../../adapters/peer-http.ts";
import type { AgentCard } from "../../../ink/index.ts";
import type { With } from "../../context.ts";
import { fetchPeerCard, type FetchCardResult } from "../fetch-peer-card.ts";

export interface StrangerFetches {
  /** PeerHttp under the stranger-fetch budgets (DID documents). */
  http: PeerHttp;
  /** `fetchPeerCard` under the budgets; a card that fails its checks is not fetched again for a while. */
  card(input: { cardUrl: string; agentId: string }): Promise<FetchCardResult>;
  /** The card `cardUrl` gave a moment ago, when it passed every check for `agentId` (no I/O). */
  recent(input: { cardUrl: string; agentId: string }): AgentCard | null;
  /** Whether a card fetched a moment ago may be fetched again for a key id it does not list (adapters/fetch-budget.ts). */
  mayRecheck(cardUrl: string, keyId: string): boolean;
  /** A card was fetched for a request naming `keyId`: it counts as tried for that card. */
  tried(cardUrl: string, keyId: string): void;
  /** `fetchPeerCard` outside the budgets, for a request already shown to be the agent's own. */
  cardForAgent(input: { cardUrl: string; agentId: string }): Promise<FetchCardResult>;
}

/**
 * The fetches an inbound request can make the node do (a sender's card, a did:web document, a
 * card hint, a listing's card), charged to the request's client address (adapters/fetch-budget.ts:
 * global, per-host and per-source budgets, a negative cache). Call only after every check that
 * needs no key has passed (issue 21: no fetch before the cheap checks).
 */
export function strangerFetches(ctx: With<"node" | "vault" | "peers">): StrangerFetches {
  const now = ctx.clock.now();
  // Charged to the address the request came from: before authentication a public caller, after it the agent.
  const ip = ctx.actor.kind === "public" || ctx.actor.kind === "agent" ? ctx.actor.ip : null;
  const http = ctx.peers.fetchBudget.gate(ctx.peers.http, ip, now);
  return {
    http,
    async card(input) {
      const fetched = await fetchPeerCard({ ...ctx, peers: { ...ctx.peers, http } }, input);
      // A continuity refusal keeps the stored card and is already throttled per principal.
      if (!fetched.ok && fetched.reason !== "throttled" && fetched.reason !== "card_continuity") ctx.peers.fetchBudget.failed(input.cardUrl, now);
      if (fetched.ok) ctx.peers.fetchBudget.verified(input.cardUrl, fetched.cardJson, now);
      return fetched;
    },
    async cardForAgent(input) {
      const fetched = await fetchPeerCard(ctx, input);
      if (fetched.ok) ctx.peers.fetchBudget.verified(input.cardUrl, fetched.cardJson, now);
      return fetched;
    },
    mayRecheck: (cardUrl, keyId) => ctx.peers.fetchBudget.mayRecheck(cardUrl, keyId, now),
    tried: (cardUrl, keyId) => ctx.peers.fetchBudget.tried(cardUrl, keyId, now),
    recent(input) {
      const json = ctx.peers.fetchBudget.recentCard(input.cardUrl, now);
      const card = json === null ? null : (JSON.parse(json) as AgentCard);
      return card !== null && card.agentId === input.agentId ? card : null;
    },
  };
}
