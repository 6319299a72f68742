import { Elysia, type AnyElysia } from "elysia";
import type { Db } from "./db/client.ts";
import type { Clock, Ids, Logger } from "./domain/context.ts";
import type { NodeIdentity } from "./domain/identity/agent.ts";
import type { SurfaceDeps } from "./http/deps.ts";
import { buildOpenApiDocument } from "./http/openapi.ts";
import { errorHandler } from "./http/plugins/errors.ts";
import { requestLog } from "./http/plugins/request-log.ts";
import { cardRoutes } from "./http/surfaces/card.routes.ts";
import { handleRoutes } from "./http/surfaces/handle.routes.ts";
import { wellKnownRoutes } from "./http/surfaces/wellknown.routes.ts";
import { clientIpResolver } from "./http/plugins/client-ip.ts";
import { inkRoutes } from "./http/surfaces/ink.routes.ts";
import type { FederationDeps } from "./domain/federation/deps.ts";
import { nativeStrictVerifier } from "./security/ed25519-native.ts";
import type { KeyVault } from "./security/key-vault.ts";
import type { PeerHttp } from "./security/peer-http.ts";
import { createMemoryRateLimiter, type MemoryRateLimiter } from "./security/rate-limit.ts";

export interface AppDeps {
  db: Db;
  clock: Clock;
  ids: Ids;
  log: Logger;
  node: NodeIdentity & { version: string };
  vault: KeyVault;
  /** Take client IPs from X-Forwarded-For (KITH_TRUST_PROXY). */
  trustProxy?: boolean;
  /** The socket's peer address for a request (Bun.serve's requestIP); absent in-process. */
  remoteAddress?: (request: Request) => string | null;
  federation: FederationDeps;
}

/** Federation collaborators, shared by the HTTP app and the outbox worker. */
export function createFederationDeps(input: {
  node: FederationDeps["node"];
  vault: KeyVault;
  http: PeerHttp;
  allowPrivatePeers: boolean;
  wakeOutbox: () => void;
  limiter?: MemoryRateLimiter;
}): FederationDeps {
  return {
    node: input.node,
    vault: input.vault,
    http: input.http,
    verifier: nativeStrictVerifier,
    limiter: input.limiter ?? createMemoryRateLimiter(),
    allowPrivatePeers: input.allowPrivatePeers,
    wakeOutbox: input.wakeOutbox,
  };
}

/**
 * The composition root of the HTTP server: wires surfaces to their collaborators. No import-time
 * side effects; tests call it with a temp database, a test clock and sequential ids.
 */
export function createApp(deps: AppDeps) {
  const surface: SurfaceDeps = {
    ctx: (actor) => ({ actor, db: deps.db, clock: deps.clock, ids: deps.ids, log: deps.log }),
    node: deps.node,
    log: deps.log,
    clientIp: clientIpResolver({ trustProxy: deps.trustProxy ?? false, remoteAddress: deps.remoteAddress ?? (() => null) }),
    limiter: deps.federation.limiter,
    now: () => deps.clock.now(),
  };
  let openapi: Record<string, unknown> | null = null;
  let root: AnyElysia | null = null;
  const documents = {
    openapi: (): Record<string, unknown> => (openapi ??= buildOpenApiDocument(root!, { publicUrl: deps.node.publicUrl, kithVersion: deps.node.version })),
    oauthMetadata: () => oauthMetadata(deps.node.publicUrl),
  };
  const app = new Elysia({ name: "kith" })
    .use(errorHandler(deps.log))
    .use(requestLog(deps.log, deps.ids))
    .use(wellKnownRoutes(surface, documents))
    .use(cardRoutes(surface))
    .use(inkRoutes(surface, deps.federation))
    .use(handleRoutes(surface));
  root = app;
  return app;
}

export type App = ReturnType<typeof createApp>;

/** RFC 8414 metadata listing only what this node supports. */
function oauthMetadata(publicUrl: string): Record<string, unknown> {
  return {
    issuer: publicUrl,
    response_types_supported: [],
    grant_types_supported: [],
    service_documentation: `${publicUrl}/.well-known/openapi.json`,
  };
}
