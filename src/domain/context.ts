import type { FetchBudget } from "../adapters/fetch-budget.ts";
import type { KeyVault } from "../adapters/key-vault.ts";
import type { LlmClient, Transcriber } from "../adapters/llm.ts";
import type { PeerHttp } from "../adapters/peer-http.ts";
import type { Db } from "../db/client.ts";
import type { WriteQueue } from "../db/write-queue.ts";
import type { AgentCard, SenderKeys, Wordmark } from "../ink/index.ts";
import type { MemoryRateLimiter } from "../security/rate-limit.ts";
import type { SignaturePool } from "../security/preverify.ts";
import type { BatchedCrypto } from "../security/batched-crypto.ts";
import type { RecomputeRequest, RecomputeResult } from "./network/recompute-network.ts";

/** Wall clock in unix milliseconds; tests inject a controllable one. */
export interface Clock {
  now(): number;
}

/** Id source (ULIDs in production, sequential in tests). */
export interface Ids {
  next(): string;
}

export type LogFields = Record<string, unknown>;

export interface Logger {
  debug(msg: string, fields?: LogFields): void;
  info(msg: string, fields?: LogFields): void;
  warn(msg: string, fields?: LogFields): void;
  error(msg: string, fields?: LogFields): void;
  child(fields: LogFields): Logger;
}

/**
 * Who is asking. Each auth plugin produces exactly one variant; a verb checks it on its first line
 * (internal/actors.ts) and never re-authenticates.
 */
export type Actor = OwnerActor | AgentActor | ExtensionActor | { kind: "public"; ip: string | null } | { kind: "system"; job: string };

export interface OwnerActor {
  kind: "owner";
  subject: string;
}

/**
 * A verified INK sender (http/plugins/ink-signature.ts, domain/peers/authenticate-peer.ts): its
 * canonical principal and id, the keys that verified the request (and its card when one is
 * known), the request as read, and what the verb still has to record in its own transaction: the
 * replay nonce (INK §8: last, never burnt by a request that fails a later check) and what was
 * learned about the sender's card.
 */
export interface AgentActor {
  kind: "agent";
  principal: string;
  agentId: string;
  /** The client address the request came from (stranger-fetch budgets). */
  ip: string | null;
  card: AgentCard | null;
  keys: SenderKeys;
  nonce: string;
}

/**
 * An installed extension acting for the owner under its grant (http/plugins/extension-auth.ts,
 * domain/extensions/authenticate-extension.ts): what its token grants, narrowed by the
 * installation's current grant, and the key its request was signed with.
 */
export interface ExtensionActor {
  kind: "extension";
  installationId: string;
  extensionId: string;
  permissions: string[];
  layers: string[];
  maxAutonomyTier: "transactional" | "social" | "personal";
  /** The extension key that signed the request (the token's publicKeyMultibase). */
  publicKeyMultibase: string;
}

/** The small explicit context every domain verb receives. */
export interface Ctx {
  actor: Actor;
  db: Db;
  clock: Clock;
  ids: Ids;
  log: Logger;
}

/** What a verb needs to know about this node's public face. */
export interface NodeIdentity {
  publicUrl: string;
  wordmark: Wordmark;
  /** KITH_MAILBOX_URL: the mailbox base peers reach this agent through (docs/decisions/mailbox.md). */
  mailboxUrl?: string | null;
}

/** After-commit nudges: a verb that queued work for a job wakes it once its transaction committed. */
export interface Wake {
  outbox(): void;
  directoryPusher(): void;
}

/** Requests to other agents' nodes, and the budgets of the ones a stranger can cause. */
export interface PeerNetwork {
  http: PeerHttp;
  /** Budgets and negative cache for the fetches strangers can cause (domain/peers/internal/stranger-fetches.ts). */
  fetchBudget: FetchBudget;
  /** KITH_ALLOW_PRIVATE_PEERS: also skips the SSRF vetting of URL fields inside fetched cards. */
  allowPrivatePeers: boolean;
  /** Where inbound signatures are verified when the device has spare cores (adapters/crypto-batch.ts). */
  signatures: SignaturePool;
}

/** The discovery registry's settings (KITH_DIRECTORIES, KITH_DIRECTORY_REVALIDATE_SECONDS). */
export interface DirectorySettings {
  /** The directories this node publishes to (https base or card URLs). */
  directories: readonly string[];
  /** How often remote listings are re-checked, in ms. */
  revalidateMs: number;
}

/** The AI backends of the owner's assistant; each is null when not configured. */
export interface AssistantBackends {
  /** KITH_LLM_URL: drafts and summaries; without it the deterministic built-in answers. */
  llm: LlmClient | null;
  /** KITH_TRANSCRIBE_URL: transcription; without it the route answers 503. */
  transcriber: Transcriber | null;
}

/**
 * Recomputes and stores the network snapshot (domain/network/recompute-network.ts) from the
 * database as it is now, off the event loop: a Worker for a database file, in process for an
 * in-memory one.
 */
export interface NetworkRunner {
  compute(request: RecomputeRequest): Promise<RecomputeResult>;
}

/** The network analytics' timing (debounce after changes, longest wait, refresh for decay). */
export interface NetworkSettings {
  runner: NetworkRunner;
  /** Quiet time after the last change before a recompute. */
  debounceMs: number;
  /** A graph that keeps changing is still recomputed at least this often. */
  maxWaitMs: number;
  /** A snapshot older than this is recomputed even without changes (ties decay with age). */
  refreshMs: number;
}

/**
 * The named collaborators a verb may take besides `Ctx` (STYLE: "plus named collaborators a verb
 * needs"). A verb's signature lists the ones it uses, `With<"node" | "wake">`; the composition root
 * (src/node/create-node.ts) builds them once, tests hand in their own.
 */
export interface Collaborators {
  node: NodeIdentity;
  vault: KeyVault;
  peers: PeerNetwork;
  limiter: MemoryRateLimiter;
  /** Group commit for the inbound hot path: one fsync for the requests of one event-loop turn. */
  writes: WriteQueue;
  /** Ed25519 batched across the requests of a turn onto worker threads (size 0: none; adapters/crypto-batch.ts). */
  crypto: BatchedCrypto;
  wake: Wake;
  directory: DirectorySettings;
  assistant: AssistantBackends;
  network: NetworkSettings;
}

export type With<K extends keyof Collaborators> = Ctx & Pick<Collaborators, K>;

/**
 * What the node counts for monitoring (GET /metrics, node/prometheus.ts). Surfaces and jobs
 * record; a node without KITH_METRICS_TOKEN records into nothing. Labels are bounded sets (route
 * templates, INK reasons, outcomes), never ids or addresses, except the extension installation.
 */
export interface Metrics {
  request(method: string, route: string, status: number): void;
  inkIntent(outcome: "accepted" | "held" | "refused", reason: string): void;
  delivery(outcome: "delivered" | "retry" | "failed"): void;
  signInFailure(route: string): void;
  /**
   * One extension API request (issue 14): the installation it authenticated as (null when it did
   * not), its operation (method and route template) and how it ended (`ok` or the refusal's code).
   */
  extensionCall(installationId: string | null, operation: string, outcome: string): void;
}
