// The main thread's CPU per accepted intent when intents come one per event-loop turn against when
// they come in waves (issue 18: at 1,000/s an intent cost the node's main thread ~234 µs more than at
// saturation). The whole app in process (`app.handle`, as inbound-app.ts), one regime after the
// other in alternating rounds on the same node:
//   waves  — CONCURRENCY requests at once, the next wave when all are answered (saturation's shape:
//            many requests per turn share the turn's batches, one COMMIT and one fsync);
//   paced  — an open loop at RATE/s on timers: each request arrives alone in its own turn, is
//            committed alone and fsynced alone, as at 1,000/s offered.
// For each: CPU µs per intent of the main thread (clock_gettime of the thread's CPU clock) and of
// the process, and the part of the main thread spent in the write queue's flush, split into the
// jobs themselves (receiveIntent's transaction body), the write COMMIT, BEGIN IMMEDIATE, the
// synchronous toggles and the rest (the fsync handed to its thread, savepoints, bookkeeping); and
// how many timer callbacks ran per intent (a paced run whose figure is ~1 was not paced: the node
// fell behind and batched, as on a loaded machine).
// The pacing's own cost (timers with nothing to send) is measured apart and subtracted.
// With KITH_BENCH_BASE=<checkout>, that checkout's node runs in this process too, interleaved.
// KITH_BENCH_SOCKET=1: over loopback instead, the node behind Bun.serve (as `kith serve` sets it up)
// in this process and the load generator in a child process (inbound-turns-client.ts), so the
// per-wakeup work of reading and answering sockets is in the figures; waves are then closed-loop.
// KITH_BENCH_SYSCALLS=1 also counts the main thread's system calls per intent by kind (perf stat).
// KITH_BENCH_WORKERS=<n> crypto workers (default 0: the one-core node, everything on this thread).
// Usage: bun scripts/bench/inbound-turns.ts [intents per round=1500] [rounds=5] [rate=1000] [concurrency=64]
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { loadInboundNode } from "./inbound-app-node.ts";
// Times the write queue's flush (setImmediate(flush)) and its BEGIN/COMMIT/synchronous statements,
// and counts every timer callback by name, from here on (the nodes are loaded after it).
import { cpu, turnTotals } from "./turn-probe-preload.ts";

const PER_ROUND = Number(process.argv[2] ?? 1500);
const ROUNDS = Number(process.argv[3] ?? 5);
const RATE = Number(process.argv[4] ?? 1000);
const CONCURRENCY = Number(process.argv[5] ?? 64);
const WORKERS = Number(process.env.KITH_BENCH_WORKERS ?? 0);

const threadCpu = cpu; // clock_gettime(CLOCK_THREAD_CPUTIME_ID): see turn-probe-preload.ts
const threadSys = () => process.threadCpuUsage().system;
const processCpu = () => {
  const u = process.cpuUsage();
  return u.user + u.system;
};

const roots = [{ label: "this", root: resolve(import.meta.dir, "../..") }];
if (process.env.KITH_BENCH_BASE) roots.unshift({ label: "base", root: resolve(process.env.KITH_BENCH_BASE) });

async function load(label: string, root: string) {
  const { createCryptoBatcher } = (await import(`${root}/src/adapters/crypto-batch.ts`)) as { createCryptoBatcher(o: { workers: number; maxBatch?: number }): unknown };
  const a = await loadInboundNode(label, root, { crypto: createCryptoBatcher({ workers: WORKERS, ...(process.env.KITH_BENCH_MAXBATCH ? { maxBatch: Number(process.env.KITH_BENCH_MAXBATCH) } : {}) }) });
  // The jobs' own time inside the flush (the transaction's body: nonce, message, events, audit).
  let jobUs = 0;
  const writes = a.node.collaborators.writes;
  const run = writes.run.bind(writes);
  writes.run = (fn) =>
    run((tx) => {
      const t0 = threadCpu();
      try {
        return fn(tx);
      } finally {
        jobUs += threadCpu() - t0;
      }
    });
  let port = 0;
  if (SOCKET) {
    const { serverOptions } = (await import(`${root}/src/http/server-options.ts`)) as { serverOptions(log: unknown): object };
    const quiet = { debug() {}, info() {}, warn() {}, error() {}, child: () => quiet };
    port = Bun.serve({ port: 0, hostname: "127.0.0.1", ...serverOptions(quiet), fetch: (r: Request) => a.node.app.handle(r) }).port!;
  }
  return { ...a, port, jobUs: () => jobUs };
}
type Loaded = Awaited<ReturnType<typeof load>>;

const check = async (r: Response) => {
  if (r.status !== 202) throw new Error(`answered ${r.status}: ${await r.text()}`);
};
/** Socket mode: the node behind Bun.serve in this process, the load generator in a child process. */
const SOCKET = process.env.KITH_BENCH_SOCKET === "1";
/** The requests as the child sends them (written before timing). */
async function requestFile(requests: Request[]): Promise<string> {
  const file = join(tmpdir(), `kith-bench-turns-${process.pid}.json`);
  await Bun.write(file, JSON.stringify(await Promise.all(requests.map(async (r) => ({ path: new URL(r.url).pathname, headers: Object.fromEntries([...r.headers].filter(([k]) => k !== "content-length")), body: await r.text() })))));
  return file;
}
async function overSocket(a: Loaded, regime: "waves" | "paced", file: string) {
  const child = Bun.spawn([process.execPath, join(import.meta.dir, "inbound-turns-client.ts"), String(a.port), file, regime, String(RATE), String(CONCURRENCY)], { stdout: "inherit", stderr: "inherit" });
  await child.exited;
}
async function waves(a: Loaded, requests: Request[]) {
  for (let i = 0; i < requests.length; i += CONCURRENCY) await Promise.all(requests.slice(i, i + CONCURRENCY).map((r) => a.node.app.handle(r).then(check)));
}
/** An open loop at RATE/s on timers: `send(i)` for each due request, then sleep until the next is due. */
async function paced(n: number, send: (i: number) => Promise<unknown>) {
  const pending: Array<Promise<unknown>> = [];
  const t0 = performance.now();
  let i = 0;
  await new Promise<void>((done) => {
    const tick = () => {
      const due = Math.min(n, Math.floor(((performance.now() - t0) * RATE) / 1000) + 1);
      while (i < due) pending.push(send(i++));
      if (i < n) setTimeout(tick, Math.max(0, (i * 1000) / RATE - (performance.now() - t0)));
      else done();
    };
    tick();
  });
  await Promise.all(pending);
}

/**
 * KITH_BENCH_SYSCALLS=1: the main thread's system calls during a measurement, by kind (Linux `perf
 * stat` on this process's main thread; null without perf): the wake-ups and I/O a turn costs.
 */
const SYSCALLS = ["raw_syscalls:sys_enter", "syscalls:sys_enter_epoll_pwait2", "syscalls:sys_enter_epoll_pwait", "syscalls:sys_enter_futex", "syscalls:sys_enter_read", "syscalls:sys_enter_write", "syscalls:sys_enter_recvfrom", "syscalls:sys_enter_sendto", "syscalls:sys_enter_pwrite64", "syscalls:sys_enter_fcntl"];
function syscallCounter(): (() => Promise<Map<string, number>>) | null {
  if (!process.env.KITH_BENCH_SYSCALLS || !Bun.which("perf")) return null;
  const perf = Bun.spawn(["perf", "stat", "-x", ",", "-e", SYSCALLS.join(","), "-t", String(process.pid)], { stdout: "ignore", stderr: "pipe" });
  return async () => {
    await Bun.sleep(50); // perf attaches asynchronously; give its counters the last requests too
    perf.kill("SIGINT");
    const text = await new Response(perf.stderr).text();
    await perf.exited;
    const counts = new Map<string, number>();
    for (const line of text.split("\n")) {
      const [value, , event] = line.split(",");
      if (event && /^\d+$/.test(value ?? "")) counts.set(event.replace(/^raw_syscalls:sys_enter$/, "all").replace(/^syscalls:sys_enter_/, ""), Number(value));
    }
    return counts;
  };
}

interface Sample { syscalls: Map<string, number> | null; main: number; sys: number; all: number; flush: number; job: number; commit: number; begin: number; pragmas: number; immediates: number }
const FLUSH = "flush";
const total = (t: Map<string, { us: number; n: number }>, key: string, field: "us" | "n" = "us") => t.get(key)?.[field] ?? 0;
async function measure(a: Loaded, regime: "waves" | "paced", n: number): Promise<Sample> {
  const requests = a.sign(n).map(a.request); // signed before timing
  const file = SOCKET ? await requestFile(requests) : null;
  const counting = syscallCounter();
  if (counting) await Bun.sleep(200); // perf stat attaching
  const [main0, sys0, all0, t0, job0] = [threadCpu(), threadSys(), processCpu(), turnTotals(), a.jobUs()];
  if (file) await overSocket(a, regime, file);
  else if (regime === "waves") await waves(a, requests);
  else await paced(n, (i) => a.node.app.handle(requests[i]!).then(check));
  const t1 = turnTotals();
  const syscalls = counting ? await counting() : null;
  const d = (key: string, field: "us" | "n" = "us") => (total(t1, key, field) - total(t0, key, field)) / n;
  const immediates = [...t1.keys()].filter((k) => !k.startsWith(" ")).reduce((x, k) => x + d(k, "n"), 0);
  const s = { syscalls, main: (threadCpu() - main0) / n, sys: (threadSys() - sys0) / n, all: (processCpu() - all0) / n, flush: d(FLUSH), job: (a.jobUs() - job0) / n, commit: d("  of which the write COMMIT"), begin: d("  of which BEGIN IMMEDIATE"), pragmas: d("  of which PRAGMA synchronous"), immediates };
  a.node.logLines.length = 0; // the test logger keeps every line; production writes them out
  return s;
}
/** The pacing alone: timers at RATE/s that send nothing (subtracted from the paced regime's main thread). */
async function pacingCost(n: number): Promise<number> {
  const t0 = threadCpu();
  await paced(n, () => Promise.resolve());
  return (threadCpu() - t0) / n;
}

/** Medians of the syscall counts per intent, by regime (KITH_BENCH_SYSCALLS=1). */
function SYSCALLS_SEEN(results: Map<string, Sample[]>): Array<[string, string]> {
  const out: Array<[string, string]> = [];
  for (const [key, samples] of results) {
    const kinds = new Set(samples.flatMap((s) => [...(s.syscalls?.keys() ?? [])]));
    if (kinds.size === 0) continue;
    out.push([key, [...kinds].map((k) => `${k} ${median(samples.map((s) => (s.syscalls?.get(k) ?? 0) / PER_ROUND)).toFixed(2)}`).filter((x) => !x.endsWith(" 0.00")).join(", ")]);
  }
  return out;
}
const median = (xs: number[]) => [...xs].sort((x, y) => x - y)[Math.floor(xs.length / 2)]!;
const REGIMES = (process.env.KITH_BENCH_ONLY ? [process.env.KITH_BENCH_ONLY] : ["waves", "paced"]) as Array<"waves" | "paced">;
const apps: Loaded[] = [];
for (const r of roots) apps.push(await load(r.label, r.root));
for (const a of apps) for (const regime of REGIMES) await measure(a, regime, 500); // warm-up: JIT tiers, caches
const results = new Map<string, Sample[]>();
const pacing: number[] = [];
for (let round = 0; round < ROUNDS; round++) {
  const parts: string[] = [];
  const order = apps.flatMap((a) => REGIMES.map((regime) => ({ a, regime })));
  for (const { a, regime } of round % 2 ? order.reverse() : order) {
    const s = await measure(a, regime, PER_ROUND);
    const key = `${a.label} ${regime}`;
    results.set(key, [...(results.get(key) ?? []), s]);
    parts.push(`${key} ${s.main.toFixed(1)}`);
  }
  pacing.push(await pacingCost(Math.min(PER_ROUND, 500)));
  console.log(`round ${round + 1}: main-thread CPU µs per intent: ${parts.join(", ")}; pacing alone ${pacing.at(-1)!.toFixed(1)}`);
}
const pace = SOCKET ? 0 : median(pacing); // over a socket the child paces
console.log(`medians of ${ROUNDS} rounds of ${PER_ROUND} accepted intents; waves of ${CONCURRENCY}, paced at ${RATE}/s (the pacing's own ${pace.toFixed(1)} µs subtracted); ${WORKERS} crypto workers; CPU µs per intent:`);
console.log("  node   regime  main thread  (kernel)  (in flush:  jobs  COMMIT  BEGIN  pragmas  rest)  process  timer callbacks/intent");
for (const [key, samples] of results) {
  const m = (f: (s: Sample) => number) => median(samples.map(f));
  const main = m((s) => s.main) - (key.endsWith("paced") ? pace : 0);
  console.log(`  ${key.padEnd(13)} ${main.toFixed(1).padStart(10)}  (${m((s) => s.sys).toFixed(1).padStart(6)})  (${m((s) => s.flush).toFixed(1).padStart(8)}: ${[m((s) => s.job), m((s) => s.commit), m((s) => s.begin), m((s) => s.pragmas), m((s) => s.flush - s.job - s.commit - s.begin - s.pragmas)].map((x) => x.toFixed(1).padStart(6)).join(" ")})  ${m((s) => s.all).toFixed(1).padStart(12)}  ${m((s) => s.immediates).toFixed(2)}`);
}
for (const a of REGIMES.length === 2 ? apps : []) {
  const w = median(results.get(`${a.label} waves`)!.map((s) => s.main));
  const p = median(results.get(`${a.label} paced`)!.map((s) => s.main)) - pace;
  const wf = median(results.get(`${a.label} waves`)!.map((s) => s.flush));
  const pf = median(results.get(`${a.label} paced`)!.map((s) => s.flush));
  console.log(`  ${a.label}: paced − waves = ${(p - w).toFixed(1)} µs of main thread per intent, of which the flush ${(pf - wf).toFixed(1)} and the rest ${(p - w - (pf - wf)).toFixed(1)}`);
}
if (apps.length === 2)
  for (const regime of REGIMES) {
    const [b, t] = [results.get(`base ${regime}`)!, results.get(`this ${regime}`)!];
    console.log(`  this/base ${regime} (median of per-round ratios): main thread ${median(t.map((x, i) => x.main / b[i]!.main)).toFixed(3)}x, process ${median(t.map((x, i) => x.all / b[i]!.all)).toFixed(3)}x`);
  }
for (const [key, samples] of SYSCALLS_SEEN(results)) console.log(`  ${key.padEnd(13)} main-thread system calls per intent: ${samples}`);
console.log(`  timer callbacks by name: ${[...turnTotals()].filter(([k]) => !k.startsWith(" ")).map(([k, v]) => `${k.slice(0, 40)} ${v.n}`).join(", ")}`);
for (const a of apps) {
  await a.node.collaborators.writes.close();
  a.node.close();
}
process.exit(0);
