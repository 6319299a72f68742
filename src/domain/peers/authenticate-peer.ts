import { transaction } from "../../db/client.ts";
import type { With } from "../context.ts";
import type { Authenticated } from "./internal/authenticated.ts";
import { authenticateDiscoveryQuery } from "./internal/authenticate-discovery-query.ts";
import { authenticateIntent } from "./internal/authenticate-intent.ts";
import { authenticateAddressedMessage, authenticateCardQuery, authenticateListing, authenticateReview } from "./internal/authenticate-signed-request.ts";
import { savePeerCard } from "./save-peer-card.ts";
import type { AuthenticatedPeer, PeerRefusal, PeerScheme, SignedPeerRequest } from "./peer-requests.ts";

/**
 * Authenticates a signed INK request at the edge (http/plugins/ink-signature.ts calls it once per
 * request, before any verb): the checks that need no key in the request kind's own INK order, the
 * sender's keys (fetched only when a stranger may make the node fetch, under the stranger-fetch
 * budgets charged to `ctx.actor`'s address), the signature. Returns the `agent` actor — the
 * verified principal, its keys and card, and the nonce the answering verb records last, in its own
 * transaction — with the request as read; or INK's reason. What was learned about the sender's
 * card is saved here when the request is refused (it stays true, and spares the next request a
 * fetch), and otherwise handed to the verb to save with its answer.
 */
export async function authenticatePeer<S extends PeerScheme>(ctx: With<"node" | "vault" | "peers" | "crypto">, input: SignedPeerRequest<S>): Promise<AuthenticatedPeer<S> | PeerRefusal> {
  const result = (await byScheme(ctx, input)) as Authenticated<S>;
  if (!result.ok) {
    const { learned, ...refusal } = result;
    if (learned) transaction(ctx.db, (tx) => savePeerCard(tx, learned, ctx.clock.now()));
    return refusal;
  }
  const ip = ctx.actor.kind === "public" ? ctx.actor.ip : null;
  return {
    ok: true,
    actor: { kind: "agent", principal: result.principal, agentId: result.agentId, ip, card: result.card, keys: result.keys, nonce: result.nonce },
    request: result.request,
    learned: result.learned,
  };
}

function byScheme(ctx: With<"node" | "vault" | "peers" | "crypto">, input: SignedPeerRequest): Promise<Authenticated<PeerScheme>> {
  switch (input.scheme) {
    case "intent":
      return authenticateIntent(ctx, input as SignedPeerRequest<"intent">);
    case "agent_card_query":
      return authenticateCardQuery(ctx, input as SignedPeerRequest<"agent_card_query">);
    case "directory_listing":
      return authenticateListing(ctx, input as SignedPeerRequest<"directory_listing">);
    case "discovery_query":
      return authenticateDiscoveryQuery(ctx, input as SignedPeerRequest<"discovery_query">);
    case "marketplace_review":
      return authenticateReview(ctx, input as SignedPeerRequest<"marketplace_review">);
    case "receipt":
    case "audit_query":
      return authenticateAddressedMessage(ctx, input as SignedPeerRequest<"receipt" | "audit_query">);
  }
}
