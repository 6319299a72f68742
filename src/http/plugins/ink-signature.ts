import { Elysia } from "elysia";
import type { AgentActor } from "../../domain/context.ts";
import { authenticatePeer } from "../../domain/peers/authenticate-peer.ts";
import type { AuthenticatedPeer, PeerScheme } from "../../domain/peers/peer-requests.ts";
import { clientKey } from "../../security/client-key.ts";
import type { SurfaceDeps } from "../deps.ts";
import { serializedPath } from "../request-path.ts";
import { InkRefusal } from "../ink-errors.ts";
import { isJsonRequest, readRawBody } from "./raw-body.ts";
import type { PerIpRule } from "./route-options.ts";

/** How a signed INK route is read: its per-address limit and its body cap. */
export interface InkSignedRoute {
  perIp: PerIpRule;
  maxBytes: number;
}

/** What a signed INK route's handler gets besides the `agent` actor. */
export type Signed<S extends PeerScheme> = Pick<AuthenticatedPeer<S>, "request" | "learned">;

/**
 * The INK signature scheme as a plugin, beside the owner bearer one (owner-auth.ts) and, later, the
 * extension delegation one: a route declared with the option of its request kind (`inkIntent`,
 * `inkCardQuery`, `inkListing`, `inkDiscoveryQuery`: `{perIp, maxBytes}`; and `parse: "none"`, so
 * nothing else reads its body) gets `actor = {kind: "agent", …}` and `signed` (the request as
 * authenticated, what was learned of the sender's card), or never runs. In order: the
 * per-address limit, the media type, the body read once as bytes under its cap, then the domain's
 * authentication on those exact bytes (INK §4.2, §9; domain/peers/authenticate-peer.ts). A
 * refusal is an InkRefusal, answered with INK's error body by the app's error handler.
 *
 * Unnamed, as owner-auth.ts: a de-duplicated plugin would leave a second route group without it.
 */
export function inkSignature(deps: SurfaceDeps) {
  const signed = <S extends PeerScheme>(scheme: S, route: InkSignedRoute) => ({
    async resolve({ request, params }: { request: Request; params?: Record<string, string | undefined> }): Promise<{ actor: AgentActor; signed: Signed<S> }> {
      const ip = deps.clientIp(request); // read once: the limit's key and the actor's address
      const limited = deps.limiter.consume(route.perIp.bucket, clientKey(ip), route.perIp, deps.now());
      if (!limited.allowed) throw new InkRefusal("rate_limited", undefined, limited.retryAfterSeconds);
      if (!isJsonRequest(request)) throw new InkRefusal("unsupported_media_type");
      const body = await readRawBody(request, route.maxBytes);
      if (body === null) throw new InkRefusal("body_too_large");
      const ctx = deps.ctx({ kind: "public", ip });
      const requestPath = serializedPath(request.url) ?? new URL(request.url).pathname;
      const input = { scheme, pathAgentId: params?.agentId ?? null, body, authorization: request.headers.get("authorization"), requestPath };
      const auth = await authenticatePeer(ctx, input);
      if (!auth.ok) throw new InkRefusal(auth.reason, auth.detail);
      return { actor: auth.actor, signed: { request: auth.request, learned: auth.learned } };
    },
  });
  return new Elysia().macro({
    inkIntent: (route: InkSignedRoute) => signed("intent", route),
    inkCardQuery: (route: InkSignedRoute) => signed("agent_card_query", route),
    inkListing: (route: InkSignedRoute) => signed("directory_listing", route),
    inkDiscoveryQuery: (route: InkSignedRoute) => signed("discovery_query", route),
    inkMarketplaceReview: (route: InkSignedRoute) => signed("marketplace_review", route),
    inkReceipt: (route: InkSignedRoute) => signed("receipt", route),
    inkAuditQuery: (route: InkSignedRoute) => signed("audit_query", route),
  });
}
