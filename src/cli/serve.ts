import { existsSync } from "node:fs";
import { closeDatabase } from "../db/client.ts";
import { systemClock } from "../clock.ts";
import type { Ctx } from "../domain/context.ts";
import { DomainError } from "../domain/errors.ts";
import { findAgentRow } from "../domain/agent/find-agent-row.ts";
import { agentIdOf } from "../domain/agent/agent-id-of.ts";
import { verifyKeyFile } from "../domain/identity/verify-key-file.ts";
import { createUlidIds } from "../ids.ts";
import { readStoredSettings } from "../domain/node/read-stored-settings.ts";
import { createJsonLogger } from "../log.ts";
import { KeyFileError } from "../adapters/key-file.ts";
import { createKeyVault, type KeyVault } from "../adapters/key-vault.ts";
import { serverOptions } from "../http/server-options.ts";
import { createNode, type KithNode } from "../node/create-node.ts";
import { VERSION } from "../version.ts";
import { CliError, cliName, type Command } from "./command.ts";
import { cardUrlOf, initializeIdentity } from "./identity.ts";
import { configFrom } from "./init.ts";
import { createDataDir, discardDataDir } from "./create-data-dir.ts";
import { checkDataDir, nodeState } from "./data-dir.ts";
import { listenError, loadCaFile, loadTls } from "./listen.ts";
import { dataPaths } from "./paths.ts";
import { acquireServeLock } from "./serve-lock.ts";
import { nodeSecret, ownerSignInHint, signInOptions } from "./sign-in.ts";
import { stdoutIsTerminal, writeLine } from "./stdio.ts";
import { startWarnings } from "./start-warnings.ts";
import { watchJitThreads } from "./jit-threads.ts";
import { endStartUp, normalJitOnUse, type JitWatch } from "./start-up.ts";
import { guardStorage, openStorage, storageFailure } from "./storage.ts";
import { sharedCryptoBatcher } from "../adapters/crypto-batch.ts";

const SHUTDOWN_GRACE_MS = 10_000;

export const serveCommand: Command = {
  name: "serve",
  summary:
    "Run the node. On an empty data directory it first creates an agent with safe defaults (zero-config start). " +
    "Stops cleanly on SIGINT/SIGTERM: in-flight requests finish, then SQLite is closed.",
  usage: "kith serve [--data-dir D] [--port P] [--host H] [--public-url URL] [--passphrase-file F]",
  options: {
    "data-dir": { type: "string", description: "Data directory (default ./kith-data, or KITH_DATA_DIR)", valueName: "dir" },
    port: { type: "string", description: "Port (default 8787, or KITH_PORT; 0 picks a free port)", valueName: "port" },
    host: { type: "string", description: "Bind address (default 127.0.0.1, or KITH_HOST)", valueName: "addr" },
    "public-url": { type: "string", description: "Public base URL (overrides the stored one)", valueName: "url" },
    "log-level": { type: "string", description: "debug, info, warn, error, silent", valueName: "level" },
    "passphrase-file": { type: "string", description: "File holding the key file passphrase", valueName: "file" },
  },
  async run(values, io) {
    const first = configFrom(values, io);
    // JSON lines for machines; a person at a terminal gets the compact form (KITH_LOG_FORMAT overrides).
    const log = createJsonLogger({ level: first.logLevel, format: first.logFormat ?? (stdoutIsTerminal() ? "pretty" : "json"), write: (line) => writeLine(1, line) });
    const clock = systemClock;
    const ids = createUlidIds(clock);
    const tls = loadTls(first); // TLS files are not stored settings: checked before anything is created
    const peerCa = loadCaFile(first);
    const paths = dataPaths(first.dataDir);
    checkDataDir(paths.dir, "create");
    const state = nodeState(paths);
    if (state === "node" && !existsSync(paths.db)) {
      throw new CliError(
        `${paths.keyFile} exists but ${paths.db} does not. Restore the database (${cliName()} restore), ` +
          `or move the key file away to start a new identity.`,
      );
    }
    const dirExisted = existsSync(paths.dir);
    // Zero-config start: a new node, all or nothing (create-data-dir.ts), before anything else opens it.
    const created = state !== "node";
    if (created) {
      await guardStorage(paths, () =>
        createDataDir(paths, (at) => {
          const db = openStorage(at, { clock, log });
          try {
            initializeIdentity(db, createKeyVault(at.keyFile, first.passphrase), { handle: "me", displayName: "Kith agent", timezone: "UTC", stored: {} }, { clock, ids, log });
            nodeSecret(at);
          } finally {
            closeDatabase(db);
          }
        }),
      );
    }
    const lock = acquireServeLock(paths);
    let db: ReturnType<typeof openStorage>;
    try {
      // quick_check names a damaged file at start; one this process has just created and closed has nothing to name.
      db = openStorage(paths, { clock, log }, { checkIntegrity: !created });
    } catch (e) {
      lock.release();
      throw e;
    }
    let stopping = false;
    let mailer: { close?: () => void } | null = null;
    let jitWatch: JitWatch | null = null;
    let stopJitNice: (() => void) | null = null;
    let undoFreshStart = false;
    try {
      const config = configFrom(values, io, readStoredSettings(db));
      const vault = createKeyVault(paths.keyFile, config.passphrase);
      const agent = findAgentRow(db);
      if (agent) unlockKeys({ actor: { kind: "system", job: "serve" }, db, clock, ids, log, vault });
      else if (vault.exists()) throw new CliError(`${paths.keyFile} exists but the database has no agent; restore a backup or move the key file away`);

      const remote = new WeakMap<Request, string>();
      const watch = (jitWatch = normalJitOnUse());
      // JSC's compiler threads below the event loop for the node's life (jit-threads.ts).
      stopJitNice = watchJitThreads();
      let app: KithNode["app"] | null = null;
      let server: ReturnType<typeof Bun.serve>;
      try {
        server = Bun.serve({
          port: config.port,
          hostname: config.host,
          ...serverOptions(log),
          ...(tls ? { tls } : {}),
          fetch(request, srv) {
            watch.countRequest();
            const address = srv.requestIP(request)?.address;
            if (address) remote.set(request, address);
            return app!.handle(request);
          },
        });
      } catch (e) {
        undoFreshStart = created; // a first start that cannot listen leaves the directory as it found it
        throw listenError(e, config.host, config.port);
      }
      if (created) io.err(`kith: new data directory: created an agent with handle "me" (${cliName()} init sets your own handle)`);
      const publicUrl = explicitPublicUrl(values, io, readStoredSettings(db)) ?? `${tls ? "https" : "http"}://localhost:${server.port}`;
      const node = { publicUrl, wordmark: config.wordmark, version: VERSION, mailboxUrl: config.mailboxUrl };
      let auth: ReturnType<typeof signInOptions>;
      try {
        auth = signInOptions(config, paths, publicUrl, log);
      } catch (e) {
        void server.stop(true);
        throw e;
      }
      mailer = auth.mailer;
      // prom-client is loaded only when metrics are enabled (start-up time and idle RSS otherwise).
      const prometheus = config.metricsToken ? (await import("../node/metrics.ts")).createNodeMetrics(db, clock) : null;
      const batcher = sharedCryptoBatcher({ workers: config.verifyWorkers, onCrash: (reason) => log.warn("crypto batch worker failed; signing and verifying on the main thread", { reason }) });
      const kith = createNode({
        db,
        clock,
        ids,
        log,
        node,
        vault,
        allowPrivatePeers: config.allowPrivatePeers,
        ...(peerCa ? { peerCa } : {}),
        directory: { directories: config.directories, revalidateMs: config.directoryRevalidateSeconds * 1000 },
        // One batcher for every Ed25519 call that may leave the serving thread: the inbound intents'
        // two verifies (preverify), the extension API's check 7 and its audit signatures. A turn's
        // calls go to a worker as one transferred buffer; the verify pool it replaced (a message per intent,
        // its cap of 4 in flight) left the main thread verifying most intents itself at 64 clients.
        signatures: batcher,
        crypto: batcher,
        trustProxy: config.trustProxy,
        remoteAddress: (r) => remote.get(r) ?? null,
        metrics: prometheus && config.metricsToken ? { recorder: prometheus.metrics, endpoint: { token: config.metricsToken, render: prometheus.render } } : null,
        auth,
        assistant: {
          llm: config.llmUrl && config.llmModel ? { url: config.llmUrl, model: config.llmModel, apiKey: config.llmApiKey } : null,
          transcribe: config.transcribeUrl ? { url: config.transcribeUrl, model: config.transcribeModel, apiKey: config.transcribeApiKey } : null,
        },
      });
      app = kith.app;
      const providers = ["email", auth.google && "google", auth.apple && "apple", auth.atproto && "atproto"].filter((p): p is string => !!p);
      // Jobs that cannot start (their module failed to load) stop the node: exit code 1.
      let jobsFailed = false;
      let stopNow: (reason: string) => void = () => {};
      kith.jobs.start((cause) => {
        jobsFailed = true;
        io.err(`kith: the background jobs failed to start (${cause instanceof Error ? cause.message : String(cause)}); stopping`);
        stopNow("jobs failed");
      });
      // Start-up is over: what only it needed is handed back (the JIT policy waits for use: start-up.ts).
      setTimeout(() => endStartUp(), 0);
      for (const warning of startWarnings(config)) {
        log.warn(warning);
        io.err(`  warning:    ${warning}`);
      }

      const listening = `${tls ? "https" : "http"}://${config.host.includes(":") ? `[${config.host}]` : config.host}:${server.port}`;
      const agentId = agent ? agentIdOf(agent, node.wordmark) : null;
      const cardUrl = agent ? cardUrlOf(node, agent.genesisKey) : null;
      log.info("node started", { version: VERSION, listening, publicUrl, agentId, cardUrl, dataDir: paths.dir });
      if (auth.mailer.kind === "log") log.warn("no SMTP configured (KITH_SMTP_URL): sign-in mail, code included, is written to this log under \"mail\"");
      io.err(`kith ${VERSION} listening on ${listening}`);
      io.err(`  agent id:   ${agentId ?? "(none yet: POST /api/svc creates it)"}`);
      if (cardUrl) io.err(`  card:       ${cardUrl}`);
      io.err(`  data dir:   ${paths.dir}`);
      io.err(`  console:    ${publicUrl}/console (open it in a browser)`);
      const hint = ownerSignInHint({ ownerEmail: config.ownerEmail, smtp: auth.mailer.kind === "smtp", providers, dataDir: paths.dir });
      io.err(`  owner:      ${hint[0]}`);
      for (const line of hint.slice(1)) io.err(`              ${line}`);
      if (!publicUrl.startsWith("https://")) {
        io.err(`  note:       the public URL is not https; INK peers only accept https endpoints (--public-url)`);
      }

      await new Promise<void>((resolve) => {
        const stop = async (signal: string) => {
          if (stopping) return;
          stopping = true;
          log.info("shutting down", { signal });
          const timer = setTimeout(() => {
            log.warn("in-flight requests did not finish in time; closing connections", { graceMs: SHUTDOWN_GRACE_MS });
            void server.stop(true);
          }, SHUTDOWN_GRACE_MS);
          await server.stop(false);
          clearTimeout(timer);
          await new Promise((r) => setTimeout(r, 5)); // let after-response hooks (access log) of the last requests run
          await kith.close(); // deliveries in flight settle (or stay queued) and the last group commit is durable before SQLite closes
          resolve();
        };
        process.once("SIGINT", () => void stop("SIGINT"));
        process.once("SIGTERM", () => void stop("SIGTERM"));
        stopNow = (reason) => void stop(reason);
        if (jobsFailed) stopNow("jobs failed");
      });
      return jobsFailed ? 1 : 0;
    } catch (e) {
      throw storageFailure(e, paths);
    } finally {
      jitWatch?.stop();
      stopJitNice?.();
      mailer?.close?.();
      closeDatabase(db);
      lock.release();
      if (undoFreshStart) discardDataDir(paths, dirExisted);
      if (stopping) log.info("stopped");
    }
  },
};

/** A public URL that was actually configured (flag, env or stored), as opposed to the port default. */
function explicitPublicUrl(values: Record<string, string | boolean | undefined>, io: { env: Record<string, string | undefined>; cwd: string }, stored: Record<string, string>): string | null {
  const configured = typeof values["public-url"] === "string" || !!io.env.KITH_PUBLIC_URL || stored.public_url !== undefined;
  return configured ? configFrom(values, io, stored).publicUrl : null;
}

/** The key file must be this agent's (verify-key-file.ts) and must open (mode, passphrase). */
function unlockKeys(ctx: Ctx & { vault: KeyVault }): void {
  try {
    verifyKeyFile(ctx);
    ctx.vault.all();
  } catch (e) {
    if (e instanceof KeyFileError || e instanceof DomainError) throw new CliError(`cannot start: ${e.message}`);
    throw e;
  }
}
