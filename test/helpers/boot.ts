import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { App } from "../../src/http/app.ts";
import { closeDatabase, openDatabase, type Db } from "../../src/db/client.ts";
import { migrate } from "../../src/db/migrate.ts";
import type { Actor, Collaborators, Ctx, DirectorySettings, Ids } from "../../src/domain/context.ts";
import { type AgentRow } from "../../src/domain/agent/find-agent-row.ts";
import { agentIdOf } from "../../src/domain/agent/agent-id-of.ts";
import type { Wordmark } from "../../src/ink/index.ts";
import { createNode, type AssistantOptions, type NodeSettings } from "../../src/node/create-node.ts";
import type { BatchedCrypto } from "../../src/security/batched-crypto.ts";
import { createAgent } from "../../src/domain/identity/create-agent.ts";
import { createSequentialIds } from "../../src/ids.ts";
import { deliverOne } from "../../src/domain/outbox/deliver-one.ts";
import { listDueDeliveries } from "../../src/domain/outbox/list-due-deliveries.ts";
import { createJsonLogger } from "../../src/log.ts";
import { createKeyVault, type KeyVault } from "../../src/adapters/key-vault.ts";
import { createPeerHttp } from "../../src/adapters/peer-http.ts";
import { createLogMailer } from "../../src/adapters/log-mailer.ts";
import type { AuthOptions } from "../../src/node/sign-in.ts";
import { sha256 } from "@noble/hashes/sha2.js";
import { serverOptions } from "../../src/http/server-options.ts";
import { testClock, type TestClock } from "./clock.ts";
import { exchangeLogEnabled, logExchange } from "./exchange-log.ts";
import { recordExchange } from "./openapi-contract.ts";
import { personaKeyGenerator, type PersonaName } from "./personas.ts";
import { testCa, testTls } from "./tls.ts";

export const TEST_REMOTE_HEADER = "x-test-remote-address";

export interface TestNode {
  name: string;
  app: App;
  db: Db;
  clock: TestClock;
  vault: KeyVault;
  dir: string;
  agent: AgentRow | null;
  agentId: string | null;
  publicUrl: string;
  wordmark: Wordmark;
  /** The node's collaborators as its verbs get them (node.ctx(actor) carries them too). */
  collaborators: Collaborators;
  /** The directory settings the node has (directories, re-validation period). */
  discovery: DirectorySettings;
  logLines: Array<Record<string, unknown>>;
  /** The card URL other nodes use to reach this one. */
  cardUrl: string | null;
  /** Number of times a commit asked the outbox worker to wake up. */
  wakes: number;
  /** The node secret the app was built with (tests sign tokens with keys derived from it). */
  secret: Uint8Array;
  /** A request through the real app (`http://localhost` + path), no port. */
  request(path: string, init?: RequestInit): Promise<Response>;
  ctx(actor?: Actor): Ctx & Collaborators;
  /** Runs every due outbox delivery now (what the worker does), until nothing is due. */
  drainOutbox(): Promise<number>;
  close(): void;
}

export interface BootOptions {
  name?: string;
  auth?: Partial<AuthOptions>;
  persona?: PersonaName;
  agent?: boolean;
  wordmark?: Wordmark;
  publicUrl?: string;
  trustProxy?: boolean;
  clock?: TestClock;
  ids?: Ids;
  assistant?: AssistantOptions;
  /** Metrics for this node (KITH_METRICS_TOKEN), made from its database and clock. */
  metrics?: (db: Db, clock: TestClock) => NonNullable<Parameters<typeof createNode>[0]["metrics"]>;
  /** KITH_DIRECTORIES / re-validation period for this node. */
  discovery?: { directories?: string[]; revalidateMs?: number };
  /** Network analytics timing, and `inline` to run the analysis without a Worker. */
  network?: NodeSettings["network"];
  /** Name lookups of the node's peer client (default: *.kith.test on loopback, nothing else). */
  lookup?: Lookup;
  /** Keys an in-memory rate-limit bucket holds per window (default 20,000). */
  maxRateKeysPerBucket?: number;
  /** Where the node's batched Ed25519 work goes, the extension path's and inbound intents', as `kith serve` has it (default: the process's batcher, a worker per spare core). */
  crypto?: BatchedCrypto;
  /** KITH_MAILBOX_URL: the mailbox base this (home) node is reached through. */
  mailboxUrl?: string;
}

type Lookup = (hostname: string) => Promise<Array<{ address: string; family: number }>>;

/** Peers under test live at `<name>.kith.test`, all on loopback, behind the test CA. */
export function testPeerHttp(lookup: Lookup = testLookup) {
  return createPeerHttp({ allowPrivateAddresses: true, extraCa: [testCa()], lookup });
}

export async function testLookup(host: string): Promise<Array<{ address: string; family: number }>> {
  if (host === "kith.test" || host.endsWith(".kith.test")) return [{ address: "127.0.0.1", family: 4 }];
  throw new Error(`test DNS: unknown host ${host}`);
}

/**
 * A real node on a temp directory: migrated SQLite file, fixed persona keys, a test clock,
 * sequential ids and a log captured in memory. No mocks of our own code. Requests go through
 * `app.handle` (no port); see bootNetworkNode for a node other nodes can reach.
 */
export const TEST_NODE_SECRET = sha256(new TextEncoder().encode("kith-test/auth-secret"));

export function bootTestApp(options: BootOptions = {}): TestNode {
  return assemble(options, options.publicUrl ?? `https://${options.name ?? options.persona ?? "alice"}.example.com`);
}

/**
 * A node listening with TLS on 127.0.0.1, reachable by other test nodes as
 * https://<name>.kith.test:<port> (the test DNS maps *.kith.test to loopback).
 */
export async function bootNetworkNode(options: BootOptions & { name: string }): Promise<TestNode & { url: string; stop(): Promise<void> }> {
  let target: TestNode | null = null;
  // Requests being answered: stop() lets them finish before the database closes (a peer's late
  // fire-and-forget request, a receipt, would otherwise meet a closed database and answer 500).
  const answering = new Set<Promise<unknown>>();
  const fetch = (req: Request) => {
    const answer = handleRecorded(target!.app, req);
    const settled: Promise<unknown> = answer.then(
      () => answering.delete(settled),
      () => answering.delete(settled),
    );
    answering.add(settled);
    return answer;
  };
  const server = Bun.serve({ port: 0, hostname: "127.0.0.1", tls: testTls(), ...serverOptions(serverLog), fetch });
  const url = `https://${options.name}.kith.test:${server.port}`;
  const node = assemble(options, url);
  target = node;
  return {
    ...node,
    url,
    async stop() {
      await server.stop(true);
      await Promise.all(answering);
      await node.collaborators.writes.close();
      node.close();
    },
  };
}

function assemble(options: BootOptions, publicUrl: string): TestNode {
  const name = options.name ?? options.persona ?? "alice";
  const dir = mkdtempSync(join(tmpdir(), `kith-test-${name}-`));
  const clock = options.clock ?? testClock();
  const ids = options.ids ?? createSequentialIds(name.slice(0, 1).toUpperCase());
  const logLines: Array<Record<string, unknown>> = [];
  const log = createJsonLogger({ level: "debug", write: (line) => logLines.push(JSON.parse(line)), now: clock.now });
  const db = openDatabase(join(dir, "kith.db"));
  migrate(db.$client, { file: join(dir, "kith.db"), now: clock.now() });
  const vault = createKeyVault(join(dir, "agent-key.json"), null);
  const wordmark = options.wordmark ?? "svc";
  const persona = options.persona ?? (["alice", "bob", "carol", "acme"].includes(name) ? (name as PersonaName) : "alice");
  const node = { publicUrl, wordmark, version: "0.0.0-test", ...(options.mailboxUrl ? { mailboxUrl: options.mailboxUrl } : {}) };
  let wakes = 0;
  // In-process requests have no socket: a test sets the peer address with this header.
  const remoteAddress = (r: Request) => r.headers.get(TEST_REMOTE_HEADER) ?? "192.0.2.10";
  const auth: AuthOptions = {
    secret: TEST_NODE_SECRET,
    ownerEmail: null,
    mailer: createLogMailer(log),
    redirectUris: [],
    google: null,
    apple: null,
    atproto: null,
    ...options.auth,
  };
  const kith = createNode({
    db,
    clock,
    ids,
    log,
    vault,
    node,
    allowPrivatePeers: true,
    peerHttp: testPeerHttp(options.lookup),
    ...(options.maxRateKeysPerBucket ? { maxRateKeysPerBucket: options.maxRateKeysPerBucket } : {}),
    ...(options.crypto ? { crypto: options.crypto, signatures: options.crypto } : {}),
    ...(options.discovery ? { directory: options.discovery } : {}),
    trustProxy: options.trustProxy ?? false,
    remoteAddress,
    auth,
    ...(options.assistant ? { assistant: options.assistant } : {}),
    ...(options.network ? { network: options.network } : {}),
    ...(options.metrics ? { metrics: options.metrics(db, clock) } : {}),
    onWake: (job) => void (job === "outbox" && wakes++),
  });
  const app = kith.app;
  const ctx = (actor: Actor = { kind: "system", job: "test" }) => kith.ctx(actor);
  const agent =
    options.agent === false
      ? null
      : createAgent(ctx(), { handle: persona, displayName: `${persona[0]!.toUpperCase()}${persona.slice(1)} Example`, timezone: "Europe/Paris" }, { generateKey: personaKeyGenerator(persona) });
  const collaborators = ctx();
  const agentId = agent ? agentIdOf(agent, wordmark) : null;
  const testNode: TestNode = {
    name,
    app,
    db,
    clock,
    vault,
    dir,
    agent,
    agentId,
    publicUrl,
    wordmark,
    collaborators,
    discovery: collaborators.directory,
    logLines,
    cardUrl: agentId ? `${options.mailboxUrl ?? publicUrl}/ink/v1/${encodeURIComponent(agentId)}/agent.json` : null,
    get wakes() {
      return wakes;
    },
    secret: auth.secret,
    request: (path, init) => handleRecorded(app, new Request(`http://localhost${path}`, init)),
    ctx,
    async drainOutbox() {
      let delivered = 0;
      for (let round = 0; round < 50; round++) {
        const due = listDueDeliveries(ctx({ kind: "system", job: "outbox" }), 100);
        if (due.length === 0) break;
        for (const item of due) {
          await deliverOne(ctx({ kind: "system", job: "outbox" }), item);
          delivered++;
        }
      }
      return delivered;
    },
    close() {
      void collaborators.writes.close(); // nothing is pending once a test has awaited its requests
      closeDatabase(db);
      rmSync(dir, { recursive: true, force: true });
    },
  };
  return testNode;
}

export type NetworkNode = TestNode & { url: string; stop(): Promise<void> };

/** app.handle, recording the exchange for the OpenAPI contract check (test/helpers/openapi-contract.ts). */
async function handleRecorded(app: App, request: Request): Promise<Response> {
  const copy = request.clone() as Request;
  const logged = exchangeLogEnabled() ? (request.clone() as Request) : null;
  const response = await app.handle(request);
  if (logged) logExchange(logged, response.clone() as Response);
  await recordExchange(copy, response.clone() as Response, () => app.handle(new Request("http://localhost/.well-known/openapi.json")));
  return response;
}

/** Test servers' own errors (Bun.serve's error handler) go to stderr. */
const serverLog = createJsonLogger({ level: "error", write: (line) => console.error(line) });

/** Alice and Bob as two TLS nodes sharing one test clock (the usual two-node fixture). */
export async function bootNetworkPair(options: { alice?: BootOptions; bob?: BootOptions } = {}): Promise<{ alice: NetworkNode; bob: NetworkNode; clock: TestClock }> {
  const clock = testClock();
  const alice = await bootNetworkNode({ name: "alice", clock, ...options.alice });
  const bob = await bootNetworkNode({ name: "bob", clock, ...options.bob });
  return { alice, bob, clock };
}

export async function stopNodes(...nodes: Array<NetworkNode | undefined>): Promise<void> {
  await Promise.all(nodes.map((n) => n?.stop()));
}
