import { Elysia, type AnyElysia } from "elysia";
import type { Db } from "../db/client.ts";
import { createWriteQueue } from "../db/write-queue.ts";
import type { Clock, Ids, Logger } from "../domain/context.ts";
import type { NodeIdentity } from "../domain/identity/agent.ts";
import type { SurfaceDeps } from "./deps.ts";
import { errorHandler } from "./plugins/errors.ts";
import { requestLog } from "./plugins/request-log.ts";
import { requestGate } from "./plugins/request-gate.ts";
import { cardRoutes } from "./surfaces/card.routes.ts";
import { handleRoutes } from "./surfaces/handle.routes.ts";
import { wellKnownRoutes } from "./surfaces/wellknown.routes.ts";
import { clientIpResolver } from "./plugins/client-ip.ts";
import { inkRoutes } from "./surfaces/ink.routes.ts";
import { federationRoutes } from "./surfaces/federation.routes.ts";
import { assistantRoutes } from "./surfaces/assistant.routes.ts";
import type { AssistantDeps } from "../domain/assistant/deps.ts";
import { createLlmClient, createTranscriber, type OpenAiSettings } from "../adapters/llm.ts";
import type { FetchLike } from "../adapters/outbound.ts";
import type { FederationDeps } from "../domain/federation/deps.ts";
import { nativeStrictVerifier } from "../security/ed25519-native.ts";
import type { KeyVault } from "../adapters/key-vault.ts";
import type { PeerHttp } from "../adapters/peer-http.ts";
import { createMemoryRateLimiter, type MemoryRateLimiter } from "../security/rate-limit.ts";
import { createFetchBudget } from "../adapters/fetch-budget.ts";
import { authRoutes } from "./surfaces/auth.routes.ts";
import { oauthRoutes } from "./surfaces/oauth.routes.ts";
import { keysRoutes } from "./surfaces/keys.routes.ts";
import { ownerRoutes } from "./surfaces/owner.routes.ts";
import { createLogMailer } from "../adapters/log-mailer.ts";
import { listSignInProviders } from "../domain/owner/list-sign-in-providers.ts";
import { REFRESH_REUSE_GRACE_MS } from "../domain/owner/owner.ts";
import { buildSignIn, defaultAuthOptions, type AuthOptions } from "../node/sign-in.ts";
import { ownerAudience } from "../security/owner-token.ts";
import { DEFAULT_REVALIDATE_MS, type DiscoveryDeps } from "../domain/discovery/deps.ts";
import { discoverRoutes } from "./surfaces/discover.routes.ts";
import { directoryRoutes } from "./surfaces/directory.routes.ts";
import { discoveryOwnerRoutes } from "./surfaces/discovery-owner.routes.ts";

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
  /** Owner sign-in; without it the node has a random token key, mail to the log and no providers. */
  auth?: AuthOptions;
  /** AI backends of the owner's assistant (KITH_LLM_*, KITH_TRANSCRIBE_*); none by default. */
  assistant?: AssistantOptions;
  /** Discovery registry settings; without them no directories and the default re-validation period. */
  discovery?: Partial<Omit<DiscoveryDeps, "federation">>;
}

export interface AssistantOptions {
  llm?: OpenAiSettings | null;
  transcribe?: OpenAiSettings | null;
  /** Tests only: the fetch used to reach them. */
  fetch?: FetchLike;
}

/** The -wal file of a file database (group commit fsyncs it off the event loop), null in memory. */
function walFileOf(db: Db): string | null {
  const file = db.$client.filename;
  return file && file !== ":memory:" ? `${file}-wal` : null;
}

/** Discovery collaborators, shared by the HTTP app and the directory jobs. */
export function createDiscoveryDeps(federation: FederationDeps, input: Partial<Omit<DiscoveryDeps, "federation">> = {}): DiscoveryDeps {
  return {
    federation,
    directories: input.directories ?? [],
    revalidateMs: input.revalidateMs ?? DEFAULT_REVALIDATE_MS,
    wakePusher: input.wakePusher ?? (() => {}),
  };
}

/** Federation collaborators, shared by the HTTP app and the outbox worker. */
export function createFederationDeps(input: {
  db: Db;
  node: FederationDeps["node"];
  vault: KeyVault;
  http: PeerHttp;
  allowPrivatePeers: boolean;
  wakeOutbox: () => void;
  limiter?: MemoryRateLimiter;
}): FederationDeps {
  const limiter = input.limiter ?? createMemoryRateLimiter();
  return {
    node: input.node,
    vault: input.vault,
    http: input.http,
    verifier: nativeStrictVerifier,
    limiter,
    fetchBudget: createFetchBudget(limiter),
    allowPrivatePeers: input.allowPrivatePeers,
    wakeOutbox: input.wakeOutbox,
    writes: createWriteQueue(input.db, { walFile: walFileOf(input.db) }),
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
  const discovery = createDiscoveryDeps(deps.federation, deps.discovery);
  const { signIn, atprotoClientMetadata } = buildSignIn(deps.auth ?? defaultAuthOptions(createLogMailer(deps.log)), deps.node, deps.clock);
  let openapi: Promise<Record<string, unknown>> | null = null;
  let root: AnyElysia | null = null;
  const documents = {
    // Built on first request, and its generator loaded only then (~20 ms of start-up otherwise).
    openapi: (): Promise<Record<string, unknown>> =>
      (openapi ??= import("./openapi.ts").then((m) => m.buildOpenApiDocument(root!, { publicUrl: deps.node.publicUrl, kithVersion: deps.node.version }))),
    oauthMetadata: () => oauthMetadata(deps.node.publicUrl, listSignInProviders(surface.ctx({ kind: "public", ip: null }), signIn)),
  };
  const app = new Elysia({ name: "kith" })
    .use(errorHandler(deps.log))
    .use(requestLog(deps.log, deps.ids))
    .use(requestGate(surface, () => root!.routes))
    .use(wellKnownRoutes(surface, documents))
    .use(cardRoutes(surface, { vault: deps.vault }))
    .use(inkRoutes(surface, deps.federation))
    .use(authRoutes(surface, signIn))
    .use(oauthRoutes(surface, signIn, atprotoClientMetadata))
    .use(ownerRoutes(surface, { tokens: signIn.tokens, vault: deps.vault, node: deps.node }))
    .use(keysRoutes(surface, { tokens: signIn.tokens, vault: deps.vault, wakeOutbox: () => deps.federation.wakeOutbox() }))
    .use(federationRoutes(surface, { tokens: signIn.tokens, federation: deps.federation }))
    .use(assistantRoutes(surface, { tokens: signIn.tokens, assistant: assistantDeps(deps.assistant) }))
    .use(discoveryOwnerRoutes(surface, { tokens: signIn.tokens, discovery }))
    .use(directoryRoutes(surface, discovery))
    .use(discoverRoutes(surface))
    .use(handleRoutes(surface));
  root = app;
  return app;
}

export type App = ReturnType<typeof createApp>;

function assistantDeps(o: AssistantOptions = {}): AssistantDeps {
  const http = o.fetch ? { fetch: o.fetch } : {};
  return { llm: o.llm ? createLlmClient(o.llm, http) : null, transcriber: o.transcribe ? createTranscriber(o.transcribe, http) : null };
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
