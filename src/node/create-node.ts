import { createFetchBudget } from "../adapters/fetch-budget.ts";
import { readHtmlBundle } from "../adapters/html-bundle.ts";
import type { KeyVault } from "../adapters/key-vault.ts";
import { createLlmClient, createTranscriber, type OpenAiSettings } from "../adapters/llm.ts";
import { createLogMailer } from "../adapters/log-mailer.ts";
import type { FetchLike } from "../adapters/outbound.ts";
import { createPeerHttp, type PeerHttp } from "../adapters/peer-http.ts";
import { sharedCryptoBatcher } from "../adapters/crypto-batch.ts";
import type { Db } from "../db/client.ts";
import { createWriteQueue } from "../db/write-queue.ts";
import type { Actor, AssistantBackends, Clock, Collaborators, Ctx, DirectorySettings, Ids, Logger, Metrics, NetworkSettings, NodeIdentity, Wake } from "../domain/context.ts";
import consolePage from "../console/index.html";
import { createApp, type App } from "../http/app.ts";
import type { SignaturePool } from "../security/preverify.ts";
import type { BatchedCrypto } from "../security/batched-crypto.ts";
import type { MetricsEndpoint } from "../http/surfaces/metrics.routes.ts";
import { createMemoryRateLimiter } from "../security/rate-limit.ts";
import type { Jobs } from "./jobs.ts";
import { createNetworkRunner } from "./network-runner.ts";
import { buildSignIn, defaultAuthOptions, type AuthOptions } from "./sign-in.ts";

/** Six hours: how often a directory re-fetches the cards of its remote listings by default. */
export const DEFAULT_REVALIDATE_MS = 6 * 60 * 60 * 1000;

/** Everything a node is made of; `kith serve` reads it from the data directory and the settings, tests write it. */
export interface NodeSettings {
  db: Db;
  clock: Clock;
  ids: Ids;
  log: Logger;
  node: NodeIdentity & { version: string };
  vault: KeyVault;
  /** KITH_ALLOW_PRIVATE_PEERS: peers on private addresses are allowed (tests, home LANs). */
  allowPrivatePeers: boolean;
  /** Extra CA certificates peers are checked against (KITH_TLS_CA_FILE). */
  peerCa?: string[];
  /** The peer client to use instead of one built from the two settings above (tests: their own DNS). */
  peerHttp?: PeerHttp;
  directory?: Partial<DirectorySettings>;
  /** Take client IPs from X-Forwarded-For (KITH_TRUST_PROXY). */
  trustProxy?: boolean;
  /** The socket's peer address for a request (Bun.serve's requestIP); absent in-process. */
  remoteAddress?: (request: Request) => string | null;
  /** Owner sign-in; without it the node has a random token key, mail to the log and no providers. */
  auth?: AuthOptions;
  /** AI backends of the owner's assistant (KITH_LLM_*, KITH_TRANSCRIBE_*); none by default. */
  assistant?: AssistantOptions;
  /** Where inbound signatures are verified; by default the process's pool (a worker per spare core). */
  signatures?: SignaturePool;
  /** Where the extension path's verifies and audit signatures go; by default the process's batcher (a worker per spare core). */
  crypto?: BatchedCrypto;
  /** Network analytics timing; `inline` runs the analysis in process instead of a Worker (tests). */
  network?: Partial<Omit<NetworkSettings, "runner">> & { inline?: boolean };
  /** Keys one in-memory rate-limit bucket holds per window (default 20,000; tests fill a bucket with fewer). */
  maxRateKeysPerBucket?: number;
  /** KITH_METRICS_TOKEN: what requests and deliveries are counted into, and GET /metrics (node/metrics.ts). */
  metrics?: { recorder: Metrics; endpoint: MetricsEndpoint } | null;
  /** Told of every after-commit nudge, besides the job it wakes (tests count them). */
  onWake?: (job: keyof Wake) => void;
  /** Tests only: how the jobs' module is loaded (a failing load must stop kith serve). */
  loadJobs?: () => Promise<Pick<typeof import("./jobs.ts"), "startJobs">>;
}

export interface AssistantOptions {
  llm?: OpenAiSettings | null;
  transcribe?: OpenAiSettings | null;
  /** Tests only: the fetch used to reach them. */
  fetch?: FetchLike;
}

export interface KithNode {
  app: App;
  /** A verb's context for `actor`, with every collaborator: what surfaces, jobs, the CLI and tests hand to verbs. */
  ctx(actor: Actor): Ctx & Collaborators;
  /** The background jobs (outbox, directory pushes and re-validation, assistant, maintenance); `kith serve` starts them. */
  jobs: Jobs;
  /** Stops the jobs (deliveries in flight settle first), then makes the last group commit durable. The database stays open. */
  close(): Promise<void>;
}

/**
 * The composition root: the one place a node is wired. Builds the collaborators verbs take (peer
 * client and fetch budgets, rate limiter, group-commit queue, after-commit wake-ups, directory and
 * assistant settings), owner sign-in, the HTTP app and the jobs. No import-time side effects.
 */
export function createNode(settings: NodeSettings): KithNode {
  const limiter = createMemoryRateLimiter(settings.maxRateKeysPerBucket ? { maxKeysPerBucket: settings.maxRateKeysPerBucket } : {});
  let jobs: Omit<Jobs, "start"> | null = null;
  const wake: Wake = {
    outbox: () => {
      settings.onWake?.("outbox");
      jobs?.wake("outbox");
    },
    directoryPusher: () => {
      settings.onWake?.("directoryPusher");
      jobs?.wake("directoryPusher");
    },
  };
  const runner = createNetworkRunner(settings.db, settings.log, { inline: settings.network?.inline ?? false });
  const collaborators: Collaborators = {
    node: settings.node,
    vault: settings.vault,
    peers: {
      http: settings.peerHttp ?? createPeerHttp({ allowPrivateAddresses: settings.allowPrivatePeers, ...(settings.peerCa ? { extraCa: settings.peerCa } : {}) }),
      fetchBudget: createFetchBudget(limiter),
      allowPrivatePeers: settings.allowPrivatePeers,
      signatures: settings.signatures ?? sharedCryptoBatcher(),
    },
    limiter,
    writes: createWriteQueue(settings.db, {
      walFile: walFileOf(settings.db),
      checkpoints: { onFailure: (reason) => settings.log.warn("checkpoint worker failed; SQLite checkpoints on the event loop again", { reason }) },
    }),
    wake,
    crypto: settings.crypto ?? sharedCryptoBatcher(),
    directory: { directories: settings.directory?.directories ?? [], revalidateMs: settings.directory?.revalidateMs ?? DEFAULT_REVALIDATE_MS },
    assistant: assistantBackends(settings.assistant),
    network: {
      runner,
      debounceMs: settings.network?.debounceMs ?? 60_000,
      maxWaitMs: settings.network?.maxWaitMs ?? 10 * 60_000,
      refreshMs: settings.network?.refreshMs ?? 60 * 60_000,
    },
  };
  const { db, clock, ids, log } = settings;
  const ctx = (actor: Actor): Ctx & Collaborators => ({ actor, db, clock, ids, log, ...collaborators });
  const { signIn, atprotoClientMetadata } = buildSignIn(settings.auth ?? defaultAuthOptions(createLogMailer(log)), settings.node, clock);
  const app = createApp({
    ctx,
    ids,
    log,
    node: settings.node,
    limiter,
    now: () => clock.now(),
    trustProxy: settings.trustProxy ?? false,
    remoteAddress: settings.remoteAddress ?? (() => null),
    signIn,
    atprotoClientMetadata,
    consoleFiles: () => readHtmlBundle(consolePage),
    metrics: settings.metrics ?? null,
  });
  let starting: Promise<void> | null = null;
  let stopped = false;
  const handle: Jobs = {
    start(onFailure) {
      // The jobs and their modules (34, ~80 KiB) load on the next turn of the event loop, so the
      // requests waiting when kith serve starts are answered first (inbound-performance.md, "Start-up").
      // A node without its jobs (no outbox delivery, no maintenance) must not go on serving as if
      // healthy: a failure is logged and handed to `onFailure` (kith serve stops, exit code 1).
      starting ??= new Promise((resolve) => setTimeout(resolve, 0))
        .then(() => (settings.loadJobs ?? (() => import("./jobs.ts")))())
        .then(({ startJobs }) => {
          if (!stopped) jobs = startJobs(ctx, log, settings.metrics?.recorder);
        })
        .catch((e) => {
          log.error("background jobs failed to start", { cause: e });
          onFailure?.(e);
        });
    },
    wake: (job) => jobs?.wake(job),
    async stop() {
      stopped = true;
      await starting;
      await jobs?.stop();
    },
  };
  return {
    app,
    ctx,
    jobs: handle,
    async close() {
      await handle.stop();
      runner.close();
      await collaborators.writes.close(); // the last group commit is durable and acknowledged
    },
  };
}

/** The -wal file of a file database (group commit fsyncs it off the event loop), null in memory. */
function walFileOf(db: Db): string | null {
  const file = db.$client.filename;
  return file && file !== ":memory:" ? `${file}-wal` : null;
}

function assistantBackends(o: AssistantOptions = {}): AssistantBackends {
  const http = o.fetch ? { fetch: o.fetch } : {};
  return { llm: o.llm ? createLlmClient(o.llm, http) : null, transcriber: o.transcribe ? createTranscriber(o.transcribe, http) : null };
}
