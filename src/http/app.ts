import { Elysia, type AnyElysia } from "elysia";
import type { Actor, Collaborators, Ctx, Ids, Logger, Metrics, NodeIdentity } from "../domain/context.ts";
import { listSignInProviders } from "../domain/owner/list-sign-in-providers.ts";
import { REFRESH_REUSE_GRACE_MS, type SignInDeps } from "../domain/owner/sign-in.ts";
import { ownerAudience } from "../security/owner-token.ts";
import type { MemoryRateLimiter } from "../security/rate-limit.ts";
import type { ConsoleFiles } from "./console-bundle.ts";
import type { SurfaceDeps } from "./deps.ts";
import { clientIpResolver } from "./plugins/client-ip.ts";
import { errorHandler } from "./plugins/errors.ts";
import { requestGate, routeTableOf, type RouteTable } from "./plugins/request-gate.ts";
import { requestLog } from "./plugins/request-log.ts";
import { assistantRoutes } from "./surfaces/assistant.routes.ts";
import { authRoutes } from "./surfaces/auth.routes.ts";
import { cardRoutes } from "./surfaces/card.routes.ts";
import { consoleRoutes } from "./surfaces/console.routes.ts";
import { directoryRoutes } from "./surfaces/directory.routes.ts";
import { discoverRoutes } from "./surfaces/discover.routes.ts";
import { discoveryOwnerRoutes } from "./surfaces/discovery-owner.routes.ts";
import { extensionOwnerRoutes } from "./surfaces/extensions.routes.ts";
import { extRoutes } from "./surfaces/ext.routes.ts";
import { federationRoutes } from "./surfaces/federation.routes.ts";
import { handleRoutes } from "./surfaces/handle.routes.ts";
import { inkRoutes } from "./surfaces/ink.routes.ts";
import { keysRoutes } from "./surfaces/keys.routes.ts";
import { networkRoutes } from "./surfaces/network.routes.ts";
import { extNetworkRoutes } from "./surfaces/ext-network.routes.ts";
import { marketplaceRoutes } from "./surfaces/marketplace.routes.ts";
import { mailboxOwnerRoutes } from "./surfaces/mailbox-owner.routes.ts";
import { mailboxRoutes } from "./surfaces/mailbox.routes.ts";
import { metricsRoutes, type MetricsEndpoint } from "./surfaces/metrics.routes.ts";
import { oauthRoutes } from "./surfaces/oauth.routes.ts";
import { outboxRoutes } from "./surfaces/outbox.routes.ts";
import { ownerRoutes } from "./surfaces/owner.routes.ts";
import { sessionRoutes } from "./surfaces/session.routes.ts";
import { wellKnownRoutes } from "./surfaces/wellknown.routes.ts";

/** What the HTTP app is built from; src/node/create-node.ts (the composition root) makes all of it. */
export interface AppDeps {
  /** A verb's context for an authenticated actor, with the node's collaborators. */
  ctx(actor: Actor): Ctx & Collaborators;
  ids: Ids;
  log: Logger;
  node: NodeIdentity & { version: string };
  limiter: MemoryRateLimiter;
  now(): number;
  /** Take client IPs from X-Forwarded-For (KITH_TRUST_PROXY). */
  trustProxy: boolean;
  /** The socket's peer address for a request (Bun.serve's requestIP); absent in-process. */
  remoteAddress: (request: Request) => string | null;
  signIn: SignInDeps;
  atprotoClientMetadata(): Record<string, unknown> | null;
  /** The owner console's files (its HTML import), read on the first request for them. */
  consoleFiles(): Promise<ConsoleFiles>;
  /** What requests are counted into, and GET /metrics (KITH_METRICS_TOKEN); both absent by default. */
  metrics?: { recorder: Metrics; endpoint: MetricsEndpoint } | null;
}

/** The HTTP app: every surface, behind the error handler, the request log and the request gate. No import-time side effects. */
export function createApp(deps: AppDeps) {
  const surface: SurfaceDeps = {
    ctx: deps.ctx,
    node: deps.node,
    log: deps.log,
    clientIp: clientIpResolver({ trustProxy: deps.trustProxy, remoteAddress: deps.remoteAddress }),
    limiter: deps.limiter,
    now: deps.now,
  };
  const { signIn } = deps;
  let openapi: Promise<Record<string, unknown>> | null = null;
  let root: AnyElysia | null = null;
  const documents = {
    // Built on first request, and its generator loaded only then (~20 ms of start-up otherwise).
    openapi: (): Promise<Record<string, unknown>> =>
      (openapi ??= import("./openapi.ts").then((m) => m.buildOpenApiDocument(root!, { publicUrl: deps.node.publicUrl, kithVersion: deps.node.version }))),
    oauthMetadata: () => oauthMetadata(deps.node.publicUrl, listSignInProviders(surface.ctx({ kind: "public", ip: null }), signIn)),
  };
  const app = composeApp(surface, deps.ids, (base) =>
    base
      .use(wellKnownRoutes(surface, documents))
      .use(cardRoutes(surface))
      .use(inkRoutes(surface))
      .use(authRoutes(surface, signIn))
      .use(sessionRoutes(surface, signIn))
      .use(oauthRoutes(surface, signIn, deps.atprotoClientMetadata))
      .use(ownerRoutes(surface, { tokens: signIn.tokens }))
      .use(keysRoutes(surface, { tokens: signIn.tokens }))
      .use(federationRoutes(surface, { tokens: signIn.tokens }))
      .use(assistantRoutes(surface, { tokens: signIn.tokens }))
      .use(discoveryOwnerRoutes(surface, { tokens: signIn.tokens }))
      .use(networkRoutes(surface, { tokens: signIn.tokens }))
      .use(extensionOwnerRoutes(surface, { tokens: signIn.tokens }))
      .use(extRoutes(surface))
      .use(extNetworkRoutes(surface))
      .use(marketplaceRoutes(surface, { tokens: signIn.tokens }))
      .use(directoryRoutes(surface))
      .use(outboxRoutes(surface, { tokens: signIn.tokens }))
      .use(consoleRoutes(surface, { files: deps.consoleFiles }))
      .use(discoverRoutes(surface))
      .use(handleRoutes(surface))
      .use(mailboxRoutes(surface))
      .use(mailboxOwnerRoutes(surface, { tokens: signIn.tokens }))
      .use(metricsRoutes(deps.metrics?.endpoint ?? null)),
    deps.metrics?.recorder,
  );
  root = app;
  return app;
}

export type App = ReturnType<typeof createApp>;

/**
 * The frame every route sits in: one error handler, the request log, and the request gate, whose
 * table of what each route reads is made here, once the routes are known, so a route the gate
 * cannot read (a body declared without jsonBody) fails the app's construction, by name, instead
 * of answering 500 to every request.
 */
export function composeApp<T extends AnyElysia>(surface: SurfaceDeps, ids: Ids, addRoutes: (base: AnyElysia) => T, metrics?: Metrics): T {
  let table: RouteTable | null = null;
  const app = addRoutes(
    new Elysia({ name: "kith" })
      .use(errorHandler(surface.log))
      .use(requestLog(surface.log, ids, metrics))
      .use(requestGate(surface, () => table!)),
  );
  table = routeTableOf(app.routes);
  return app;
}

/**
 * RFC 8414 metadata listing only what this node supports. The node is not a general OAuth server:
 * its one owner signs in through a provider (or an emailed code) and gets a token pair. What is
 * standard is standard: `/auth/refresh` is a token endpoint for the refresh_token grant (form
 * body, RFC 6749 answers) and `/auth/logout` a revocation endpoint (RFC 7009), both for public
 * clients. The sign-in endpoints themselves are node-specific, listed under `kith_sign_in`; their
 * authorize step takes PKCE S256 (code_challenge_methods_supported).
 */
function oauthMetadata(publicUrl: string, providers: string[]): Record<string, unknown> {
  const oauth = providers.filter((p) => p !== "email");
  return {
    issuer: publicUrl,
    token_endpoint: `${publicUrl}/auth/refresh`,
    token_endpoint_auth_methods_supported: ["none"],
    grant_types_supported: ["refresh_token"],
    response_types_supported: ["code"],
    code_challenge_methods_supported: ["S256"],
    revocation_endpoint: `${publicUrl}/auth/logout`,
    revocation_endpoint_auth_methods_supported: ["none"],
    service_documentation: `${publicUrl}/.well-known/openapi.json`,
    kith_sign_in: {
      providers_endpoint: `${publicUrl}/auth/providers`,
      providers,
      ...(providers.includes("email") ? { email: { send_endpoint: `${publicUrl}/auth/email/send`, verify_endpoint: `${publicUrl}/auth/email/verify` } } : {}),
      ...Object.fromEntries(
        oauth.map((p) => [p, { authorization_endpoint: `${publicUrl}/auth/${p}/authorize`, callback_endpoint: `${publicUrl}/auth/${p}/callback` }]),
      ),
      ...(oauth.includes("atproto") ? { atproto_client_id: `${publicUrl}/auth/atproto/client-metadata.json` } : {}),
      access_token: { type: "JWT", alg: "HS256", lifetime_seconds: 900, audience: ownerAudience(publicUrl), stateless: true },
      refresh_token: { rotation: true, reuse_revokes_session: true, reuse_grace_seconds: REFRESH_REUSE_GRACE_MS / 1000, lifetime_seconds: 30 * 24 * 3600 },
    },
  };
}
