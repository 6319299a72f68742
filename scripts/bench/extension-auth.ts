// Extension API authentication benchmark (issue 14): authenticated requests per second through
// the whole delegation plugin — the seven checks (the verified token, the parsed installation and
// the agent's key id cached per generation of cache_generations, read once per request, so one
// native Ed25519 verify per request: the request's own signature), the per-installation limit,
// and the nonce + audit event (signed natively on the request path) written together (group
// commit) — next to the bare native verify rate measured in the same run. Requests go through the real app in-process (`app.handle`, no
// socket), in waves of CONCURRENCY, each with a fresh nonce and signature made before timing.
// Also: GET /health through the same stack, and the seven checks alone (the domain verb).
// And "batched": the same requests through a second node whose check-7 verifies and audit
// signatures go to WORKERS worker threads, batched per event-loop turn (src/adapters/crypto-batch.ts),
// in waves, with CONCURRENCY clients sending as answers come, and with twice as many;
// the other stages run on a node with no worker (everything on the serving thread). For it the
// CPU per request of the serving thread and of the workers (as they report it) each bound the
// rate ("bounds"); "other threads" is the rest of the process (WAL fsync, GC and JIT threads),
// which shares the cores with them. A worker's CPU is its curve work (a verify ~54 µs and a
// signature ~15 µs per request, packing ~5): docs/decisions/extensions.md §14.
// Usage: bun scripts/bench/extension-auth.ts [requests=6000] [concurrency=32] [runs=5] [workers=cores-1]
// (BENCH_WARMUP_RUNS=<rounds> of every stage first, not counted, default 2; BENCH_MAX_BATCH=<calls> sets the batcher's maxBatch; the node's default otherwise; BENCH_TRACE=1
// prints where the two cores' idle time went in the batched stage with clients sending as answers
// come: extension-auth-trace.ts)
import { authenticateExtension } from "../../src/domain/extensions/authenticate-extension.ts";
import { recordExtensionCall } from "../../src/domain/extensions/record-extension-call.ts";
import { ed25519Sign, utf8ToBytes } from "./extension-auth-support.ts";
import { nativeEd25519Verify, nativeStrictVerifier } from "../../src/security/ed25519-native.ts";
import { extensionSigningString } from "../../src/security/extension-request.ts";
import { bootTestApp, type TestNode } from "../../test/helpers/boot.ts";
import { createCryptoBatcher } from "../../src/adapters/crypto-batch.ts";
import { defaultVerifyWorkers } from "../../src/adapters/crypto-batch.ts";
import { acmeKey, acmeManifest, installAcme } from "../../test/helpers/extensions.ts";
import { createTrace } from "./extension-auth-trace.ts";

const REQUESTS = Number(process.argv[2] ?? 6000);
const CONCURRENCY = Number(process.argv[3] ?? 32);
const RUNS = Number(process.argv[4] ?? 5);
const WORKERS = Number(process.argv[5] ?? Math.max(1, defaultVerifyWorkers()));
/** Requests per installation and rate-limit window: the node's clock moves a window after each batch of this many. */
const PER_WINDOW = 500;

/**
 * Installations the requests are spread over, round robin. One installation may send 600 requests
 * a minute (EXT_LIMITS), so the timed loop moves the node's clock a window on after each
 * PER_WINDOW requests of each; with one installation, clients sending as answers come stopped and
 * drained every 500 requests (the last ~128 answered with nobody sending behind them, a few ms a
 * chunk of ~50 ms) — a pause no node under steady load makes. Requests per second beyond one
 * installation's limit come from several installations anyway.
 */
const INSTALLATIONS = Math.max(1, Number(process.env.BENCH_INSTALLATIONS ?? 4));
/** Installs acme `count` times (distinct extension ids, one key), as an owner would install several extensions. */
async function installMany(on: TestNode, count: number) {
  const installed = [];
  for (let i = 0; i < count; i++) installed.push(await installAcme(on, i === 0 ? {} : { manifest: acmeManifest({ id: `com.acme.keepintouch${i}` }) }));
  return installed;
}
const node = bootTestApp({ crypto: createCryptoBatcher({ workers: 0 }) });
const installs = await installMany(node, INSTALLATIONS);
const { token, installationId } = installs[0]!;
const trace = process.env.BENCH_TRACE ? createTrace() : null;
const batcher = createCryptoBatcher({
  workers: WORKERS,
  ...(process.env.BENCH_MAX_BATCH ? { maxBatch: Number(process.env.BENCH_MAX_BATCH) } : {}),
  ...(trace ? { onPart: trace.onPart } : {}),
});
const batchedNode = bootTestApp({ crypto: batcher });
trace?.watch(batchedNode.collaborators.writes);
const batchedInstalls = await installMany(batchedNode, INSTALLATIONS);
const key = acmeKey(0);
const target = "/ext/v1/identity";
const EMPTY = new Uint8Array(0);

let counter = 0;
/** What the extension sends for one GET: a fresh nonce, the node's time, its signature (made before timing). */
function signedInput(on: TestNode = node, bearer = token) {
  const nonce = `bench-${installationId.slice(0, 8)}-${(counter++).toString(36).padStart(10, "0")}`;
  const timestamp = new Date(on.clock.now()).toISOString();
  const signature = Buffer.from(ed25519Sign(utf8ToBytes(extensionSigningString("GET", target, nonce, timestamp, EMPTY)), key.secretKey)).toString("base64url");
  return { authorization: `Bearer ${bearer}`, nonce, timestamp, signature, method: "GET", target, body: EMPTY };
}

function signedRequest(on: TestNode = node, bearer = token): Request {
  const i = signedInput(on, bearer);
  return new Request(`http://localhost${target}`, { headers: { authorization: i.authorization, "x-request-nonce": i.nonce, "x-request-timestamp": i.timestamp, "x-extension-signature": i.signature } });
}

/** Process CPU time in µs (user + system): unlike wall time, barely inflated by other processes on a shared machine. */
const cpuNow = () => {
  const u = process.cpuUsage();
  return u.user + u.system;
};
/** CPU time of this (the request-serving) thread alone, in µs: without the WAL fsync thread and any worker. */
const threadNow = () => {
  const u = process.threadCpuUsage();
  return u.user + u.system;
};
/** A stage's rate (per wall second) and its CPU cost per request (µs): all threads, and this thread alone (stages through the app). */
interface Rate {
  perSecond: number;
  cpuUs: number;
  threadUs?: number;
  /** The batcher's worker threads (their own report of their CPU time): for the batched node only. */
  workerUs?: number;
}
const rate = (n: number, wallMs: number, cpuUs: number, threadUs?: number, workerUs?: number): Rate => ({
  perSecond: (n / wallMs) * 1000,
  cpuUs: cpuUs / n,
  ...(threadUs === undefined ? {} : { threadUs: threadUs / n }),
  ...(workerUs === undefined ? {} : { workerUs: workerUs / n }),
});

/**
 * `flow`: CONCURRENCY clients each sending its next request as soon as its answer arrives, instead
 * of waves that wait for their slowest answer; what lets the serving thread work while a worker
 * verifies and signs (waves leave one side idle while the other works).
 */
async function timed(n: number, make: (i: number) => Request, on: TestNode = node, flow = false, traced: { start(): void; stop(): void } | null = null, clients = CONCURRENCY): Promise<Rate> {
  let elapsed = 0;
  let cpu = 0;
  let thread = 0;
  let worker = 0;
  const batching = on === batchedNode;
  for (let done = 0; done < n; ) {
    const batch = Math.min(PER_WINDOW * INSTALLATIONS, n - done);
    const requests = Array.from({ length: batch }, (_, i) => make(i));
    const start = performance.now();
    const cpu0 = cpuNow();
    const thread0 = threadNow();
    const worker0 = batcher.workerCpuUs();
    traced?.start();
    const check = async (a: Response) => {
      if (a.status !== 200) throw new Error(`answered ${a.status}: ${await a.text()}`);
    };
    if (flow) {
      let next = 0;
      const client = async () => {
        while (next < requests.length) await check(await on.app.handle(requests[next++]!));
      };
      await Promise.all(Array.from({ length: clients }, client));
    } else
      for (let i = 0; i < requests.length; i += CONCURRENCY) {
        const answers = await Promise.all(requests.slice(i, i + CONCURRENCY).map((r) => on.app.handle(r)));
        for (const a of answers) await check(a);
      }
    traced?.stop();
    elapsed += performance.now() - start;
    cpu += cpuNow() - cpu0;
    thread += threadNow() - thread0;
    worker += batcher.workerCpuUs() - worker0;
    done += batch;
    on.clock.advance(61_000); // next rate-limit window (the token lives 4 h)
    // The test node keeps every log line (parsed) for assertions; a served node writes its line
    // and keeps nothing: drop them, or the heap the GC marks grows by a line per request all run long.
    on.logLines.length = 0;
  }
  return rate(n, elapsed, cpu, thread, batching ? worker : undefined);
}

function bareVerify(n: number): Rate {
  const nonce = "bench-bare-0000000000";
  const message = utf8ToBytes(extensionSigningString("GET", target, nonce, new Date(node.clock.now()).toISOString(), EMPTY));
  const signature = ed25519Sign(message, key.secretKey);
  const start = performance.now();
  const cpu0 = cpuNow();
  for (let i = 0; i < n; i++) if (!nativeEd25519Verify(key.publicKey, message, signature)) throw new Error("bare verify failed");
  return rate(n, performance.now() - start, cpuNow() - cpu0);
}

function checksOnly(n: number): Rate {
  const ctx = node.ctx({ kind: "public", ip: null });
  const inputs = Array.from({ length: n }, () => signedInput());
  const start = performance.now();
  const cpu0 = cpuNow();
  for (const input of inputs) authenticateExtension(ctx, input, nativeStrictVerifier);
  return rate(n, performance.now() - start, cpuNow() - cpu0);
}

/** The plugin's work without HTTP: the seven checks, then the nonce and audit event written (group commit), CONCURRENCY at a time. */
async function pluginOnly(n: number): Promise<Rate> {
  const ctx = node.ctx({ kind: "public", ip: null });
  const inputs = Array.from({ length: n }, () => signedInput());
  const start = performance.now();
  const cpu0 = cpuNow();
  for (let i = 0; i < n; i += CONCURRENCY) {
    await Promise.all(
      inputs.slice(i, i + CONCURRENCY).map((input) => {
        const { nonce, cache, ...actor } = authenticateExtension(ctx, input, nativeStrictVerifier);
        return recordExtensionCall(node.ctx(actor), actor, { nonce, method: "GET", target, cache });
      }),
    );
  }
  return rate(n, performance.now() - start, cpuNow() - cpu0);
}

const health = () => new Request("http://localhost/health");
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
// A serving node's event loop holds its listening socket; without a referenced handle Bun's loop
// spins while it waits (for the fsync, a Worker), which would count as this thread's CPU here.
const keepAlive = setInterval(() => {}, 1 << 30);
/** Request i of a window, for the installation whose turn it is. */
const request = (i: number) => signedRequest(node, installs[i % INSTALLATIONS]!.token);
const batchedRequest = (i: number) => signedRequest(batchedNode, batchedInstalls[i % INSTALLATIONS]!.token);
/**
 * Rounds of every stage run first and not counted: the JIT's compiler threads still took 10–55 µs
 * per request of the batched stage's CPU over its first ~20,000 requests (per-thread /proc
 * figures, 4,000 at a time: 22, 55, 12, 10, 7, 0), CPU the two cores then lack; a served node
 * pays it once.
 */
const WARMUP_RUNS = Math.max(0, Number(process.env.BENCH_WARMUP_RUNS ?? 2));
const stages = ["bare", "plugin", "checks", "recorded", "health", "batched", "pluginFlow", "batchedFlow", "batchedFlow2"] as const;
type Row = Record<(typeof stages)[number], Rate>;
const rows: Row[] = [];
for (let run = -WARMUP_RUNS; run < RUNS; run++) {
  const bare = bareVerify(REQUESTS);
  const plugin = await timed(REQUESTS, request);
  const batched = await timed(REQUESTS, batchedRequest, batchedNode);
  const pluginFlow = await timed(REQUESTS, request, node, true);
  const batchedFlow = await timed(REQUESTS, batchedRequest, batchedNode, true, run >= 0 ? trace : null);
  // twice the clients: if the rate rises, CONCURRENCY clients did not keep the node busy (each
  // waits for two worker round trips and a group commit's fsync before it sends again)
  const batchedFlow2 = await timed(REQUESTS, batchedRequest, batchedNode, true, null, 2 * CONCURRENCY);
  const checks = checksOnly(REQUESTS);
  const recorded = await pluginOnly(REQUESTS);
  const h = await timed(REQUESTS, health);
  const r: Row = { bare, plugin, checks, recorded, health: h, batched, pluginFlow, batchedFlow, batchedFlow2 };
  if (run < 0) continue; // warm-up
  rows.push(r);
  const x = (k: keyof Row) => `${(r[k].perSecond / bare.perSecond).toFixed(2)}x`;
  console.log(
    `run ${run + 1}: bare verify ${bare.perSecond.toFixed(0)}/s · through the app ${plugin.perSecond.toFixed(0)}/s (${x("plugin")}; GET /health ${h.perSecond.toFixed(0)}/s, ${(plugin.perSecond / h.perSecond).toFixed(2)}x of it) · ` +
      `batched on ${WORKERS} worker(s) ${batched.perSecond.toFixed(0)}/s (${x("batched")}, serving thread ${batched.threadUs!.toFixed(0)} µs/request) · ` +
      `checks + nonce + audit, no HTTP ${recorded.perSecond.toFixed(0)}/s (${x("recorded")}) · seven checks alone ${checks.perSecond.toFixed(0)}/s (${x("checks")}) · ` +
      `CPU µs/request: ${stages.map((k) => `${k} ${r[k].cpuUs.toFixed(0)}`).join(", ")}`,
  );
}
const m = (k: keyof Row) => median(rows.map((r) => r[k].perSecond));
const ratio = (k: keyof Row) => median(rows.map((r) => r[k].perSecond / r.bare.perSecond)).toFixed(2);
// CPU per request is the steadier measure on a shared machine: where a request's time goes, stage by stage.
const cpu = (k: keyof Row) => median(rows.map((r) => r[k].cpuUs)).toFixed(0);
console.log(
  `median of ${RUNS} (after ${WARMUP_RUNS} warm-up rounds): bare native verify ${m("bare").toFixed(0)}/s; through the app ${m("plugin").toFixed(0)}/s = ${ratio("plugin")}x bare ` +
    `(${median(rows.map((r) => r.plugin.perSecond / r.health.perSecond)).toFixed(2)}x GET /health); plugin work without HTTP ${ratio("recorded")}x bare; seven checks alone ${ratio("checks")}x bare (target ≥ 0.6x)`,
);
console.log(
  `median CPU µs per request: bare verify ${cpu("bare")}; seven checks ${cpu("checks")}; + nonce and audit event (group commit) ${cpu("recorded")}; ` +
    `through the app ${cpu("plugin")}; GET /health ${cpu("health")} (all threads)`,
);
type Batched = "batched" | "batchedFlow" | "batchedFlow2";
const threadCpu = (k: "plugin" | "health" | "pluginFlow" | Batched) => median(rows.map((r) => r[k].threadUs!)).toFixed(0);
const workerCpu = (k: Batched) => median(rows.map((r) => r[k].workerUs!)).toFixed(0);
/** CPU of neither the serving thread nor a worker: the WAL fsync, the garbage collector's and the JIT's threads. */
const otherCpu = (k: Batched) => median(rows.map((r) => r[k].cpuUs - r[k].threadUs! - r[k].workerUs!)).toFixed(0);
/** What one thread's CPU per request allows at most: 1 s of it ÷ its cost per request, over the bare rate (the workers share their cost). */
const bound = (k: Batched, us: (r: Rate) => number) => median(rows.map((r) => 1e6 / us(r[k]) / r.bare.perSecond)).toFixed(2);
console.log(`median CPU µs per request of the serving thread alone: through the app ${threadCpu("plugin")}; GET /health ${threadCpu("health")}`,
);
for (const [k, label] of [["batched", `waves of ${CONCURRENCY}`], ["batchedFlow", `${CONCURRENCY} clients sending as answers come`], ["batchedFlow2", `${2 * CONCURRENCY} clients sending as answers come (in place: at ${CONCURRENCY})`]] as const)
  console.log(
    `batched on ${WORKERS} worker(s), ${label}: ${m(k).toFixed(0)}/s = ${ratio(k)}x bare (in place: ${ratio(k === "batched" ? "plugin" : "pluginFlow")}x); ` +
      `CPU µs per request: serving thread ${threadCpu(k)} (in place ${threadCpu(k === "batched" ? "plugin" : "pluginFlow")}), workers ${workerCpu(k)}, other threads ${otherCpu(k)}, all threads ${cpu(k)} (in place ${cpu(k === "batched" ? "plugin" : "pluginFlow")}); ` +
      `bounds: serving thread ${bound(k, (r) => r.threadUs!)}x bare, workers ${bound(k, (r) => r.workerUs! / WORKERS)}x bare`,
  );
console.log(`batcher ${JSON.stringify(batcher.stats())}`);
if (trace) console.log(trace.summarize(WORKERS));
trace?.close();
node.close();
batchedNode.close();
await batcher.close();
clearInterval(keepAlive);
