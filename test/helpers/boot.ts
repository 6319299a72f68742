import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createApp, type App } from "../../src/app.ts";
import { closeDatabase, openDatabase, type Db } from "../../src/db/client.ts";
import { migrate } from "../../src/db/migrate.ts";
import type { Actor, Ctx } from "../../src/domain/context.ts";
import { agentIdOf, type AgentRow, type Wordmark } from "../../src/domain/identity/agent.ts";
import { createAgent } from "../../src/domain/identity/create-agent.ts";
import { createSequentialIds } from "../../src/domain/ids.ts";
import { createJsonLogger } from "../../src/log.ts";
import { createKeyVault, type KeyVault } from "../../src/security/key-vault.ts";
import { createLogMailer } from "../../src/mail/log-mailer.ts";
import type { AuthOptions } from "../../src/sign-in-setup.ts";
import { sha256 } from "@noble/hashes/sha2.js";
import { testClock, type TestClock } from "./clock.ts";
import { personaKeyGenerator } from "./personas.ts";

export const TEST_REMOTE_HEADER = "x-test-remote-address";

export interface TestNode {
  app: App;
  db: Db;
  clock: TestClock;
  vault: KeyVault;
  dir: string;
  agent: AgentRow | null;
  agentId: string | null;
  publicUrl: string;
  wordmark: Wordmark;
  logLines: Array<Record<string, unknown>>;
  /** The node secret the app was built with (tests sign tokens with keys derived from it). */
  secret: Uint8Array;
  /** A request through the real app (`http://localhost` + path), no port. */
  request(path: string, init?: RequestInit): Promise<Response>;
  ctx(actor?: Actor): Ctx;
  close(): void;
}

/**
 * A real node on a temp directory: migrated SQLite file, fixed persona keys (alice), a test
 * clock, sequential ids and a log captured in memory. No mocks of our own code.
 */
export const TEST_NODE_SECRET = sha256(new TextEncoder().encode("kith-test/auth-secret"));

export function bootTestApp(options: { agent?: boolean; wordmark?: Wordmark; publicUrl?: string; trustProxy?: boolean; auth?: Partial<AuthOptions> } = {}): TestNode {
  const dir = mkdtempSync(join(tmpdir(), "kith-test-"));
  const clock = testClock();
  const ids = createSequentialIds("T");
  const logLines: Array<Record<string, unknown>> = [];
  const log = createJsonLogger({ level: "debug", write: (line) => logLines.push(JSON.parse(line)), now: clock.now });
  const db = openDatabase(join(dir, "kith.db"));
  migrate(db.$client, { file: join(dir, "kith.db"), now: clock.now() });
  const vault = createKeyVault(join(dir, "agent-key.json"), null);
  const wordmark = options.wordmark ?? "svc";
  const publicUrl = options.publicUrl ?? "https://alice.example.com";
  const ctx = (actor: Actor = { kind: "system", job: "test" }): Ctx => ({ actor, db, clock, ids, log });
  const agent =
    options.agent === false
      ? null
      : createAgent(ctx(), { handle: "alice", displayName: "Alice Example", timezone: "Europe/Paris" }, { vault, generateKey: personaKeyGenerator("alice") });
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
  const app = createApp({ db, clock, ids, log, vault, node: { publicUrl, wordmark, version: "0.0.0-test" }, trustProxy: options.trustProxy ?? false, remoteAddress, auth });
  return {
    app,
    db,
    clock,
    vault,
    dir,
    agent,
    agentId: agent ? agentIdOf(agent, wordmark) : null,
    publicUrl,
    wordmark,
    logLines,
    secret: auth.secret,
    request: (path, init) => app.handle(new Request(`http://localhost${path}`, init)),
    ctx,
    close() {
      closeDatabase(db);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
