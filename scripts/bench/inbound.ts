// Inbound federation benchmark (issues 5, 18): accepted-and-durably-stored intents per second on one
// node, p50/p99 latency at a fixed offered rate of 1,000/s, and the bare native Ed25519 verify
// rate measured in the same run on the same core (before and after the node's phases; the median
// of those samples is the baseline). The node is a real `kith serve` process (plain HTTP on
// loopback, as behind a TLS proxy), run once pinned to CPU 0 and once on CPUs 0-1 (where its
// crypto batcher starts a worker); this script is the load generator, pinned to the last CPU.
// Senders are many distinct agents whose cards this script serves over TLS; every request is a
// distinct 1–2 KB intent with its own nonce, signed before the measured window (within INK's
// freshness window) so that the generator costs little while the node is measured.
// It also prints the node process's CPU time per request in each phase (Linux /proc).
// KITH_BENCH_LATENCY_WARMUP=<s> runs the 1,000/s load that long before the latency window (default 0).
// KITH_BENCH_STALLS=1 adds, for the latency window, the fsyncs made on the node's event loop and its
// CPU by thread; KITH_BENCH_STALLS=2 also the kernel's record (perf, root; it costs the node's core a
// little): each wait of the event loop for its core with what ran meanwhile, the JIT compilers' CPU
// by second, and the slowest 1% of requests against those waits;
// KITH_BENCH_TRACE=<prefix> writes each request's due time and latency to a file.
// KITH_BENCH_STEADY=<s>: after the latency window, that long more at 1,000/s and a second window on the
// same node (a node past its start-up JIT compiles), printed beside the first.
// KITH_BENCH_AGAINST=<checkout> runs that checkout's node (its src/main.ts) under this script's probes;
// KITH_BENCH_NICE=<n> runs the node under `nice -n <n>` (n < 0 needs root): on a shared machine, keeps
// other processes from blurring its latencies (its JIT and checkpoint threads stay relative to it).
// KITH_BENCH_NODE_STDERR=<file> keeps the node's stderr there. KITH_BENCH_GC=1 runs the node with
// JSC's GC log and prints the latency window's collections and pauses against the slowest 1%.
// KITH_BENCH_PRELOAD=1 times the node's timer callbacks and group-commit statements (turn-probe-*.ts)
// and prints, for both windows, their part of the main thread's CPU per request.
// Usage: bun scripts/bench/inbound.ts [seconds=8] [concurrency=64] [phases=1,2]
import { Database } from "bun:sqlite";
import { createPrivateKey, createPublicKey, sign as nodeSign } from "node:crypto";
import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { bareVerifySamples } from "./bare-verify.ts";
import { encodeRequest, rawClient } from "./raw-http.ts";
import { turnProbe } from "./turn-probe-report.ts";
import { describeGc, readGcLog } from "./gc-log.ts";
import { describe, monotonicMs, recordSwitches, slowestAgainstWaits } from "./sched-switch.ts";
import { bodySignatureDomain, buildSignatureBase, canonicalize, encodeEd25519PublicKey, encodeX25519PublicKey, formatTimestamp } from "../../src/ink/index.ts";

const SECONDS = Number(process.argv[2] ?? 8);
const CONCURRENCY = Number(process.argv[3] ?? 64);
// A phase is a core count, optionally ":N" verify workers (default: the node's own choice, one per
// spare core): "1,2:0,2" compares two cores without and with the crypto batcher in one run.
const PHASES = (process.argv[4] ?? "1,2:0,2").split(",").map((p) => ({ cores: Number(p.split(":")[0]), workers: p.split(":")[1] }));
const SENDERS = 400;
const ROOT = resolve(import.meta.dir, "../..");
const TLS = join(ROOT, "test/fixtures/tls");
const work = mkdtempSync(join(tmpdir(), "kith-bench-in-"));
const bun = process.execPath;
/**
 * User+system CPU time (ms) a process has used so far, from /proc (Linux); null elsewhere. With
 * `mainThread`, only its main thread's (the event loop: what the crypto batcher is meant to unload).
 */
async function cpuMs(pid: number, mainThread = false): Promise<number | null> {
  try {
    const fields = (await Bun.file(mainThread ? `/proc/${pid}/task/${pid}/stat` : `/proc/${pid}/stat`).text()).split(") ")[1]!.split(" ");
    return (Number(fields[11]) + Number(fields[12])) * 10; // utime, stime in clock ticks (100/s)
  } catch {
    return null;
  }
}
/** CPU ms of each thread of a process, by thread name and id (Linux /proc; empty elsewhere). */
async function threadsMs(pid: number): Promise<Map<string, number>> {
  const byName = new Map<string, number>();
  try {
    for (const tid of readdirSync(`/proc/${pid}/task`)) {
      const stat = await Bun.file(`/proc/${pid}/task/${tid}/stat`).text();
      // several threads share a name (every Worker is "Worker"): the thread id tells them apart
      const name = tid === String(pid) ? "main" : `${stat.slice(stat.indexOf("(") + 1, stat.lastIndexOf(")"))}#${tid}`;
      const fields = stat.slice(stat.lastIndexOf(") ") + 2).split(" ");
      byName.set(name, (byName.get(name) ?? 0) + (Number(fields[11]) + Number(fields[12])) * 10);
    }
  } catch {}
  return byName;
}
/**
 * KITH_BENCH_STALLS=1: what the latency window's event-loop stalls can be traced to, less sensitive
 * to a shared machine than the p99 itself: the node's CPU by thread (JIT compilers, GC, the
 * checkpoint Worker, the fsync pool on the node's one core take it from the event loop) and the
 * fsyncs made on the event loop itself (each blocks every request; counted by `perf stat`, if present).
 */
async function stallProbe(pid: number, cpus: string): Promise<((requests: Array<[number, number]>) => Promise<string>) | null> {
  if (!process.env.KITH_BENCH_STALLS) return null;
  const before = threadsMs(pid);
  const perf = Bun.which("perf")
    ? Bun.spawn(["perf", "stat", "-x", ",", "-e", "syscalls:sys_enter_fsync,syscalls:sys_enter_fdatasync", "--per-thread", "-p", String(pid)], { stdout: "ignore", stderr: "pipe" })
    : null;
  // the kernel's record costs the node's core ~1-2 µs a context switch: only when asked for (=2)
  const switches = process.env.KITH_BENCH_STALLS === "2" ? await recordSwitches(join(work, `sched-${cpus}.data`), (cmd) => pin(String(CPUS - 1), cmd)) : null;
  // performance.now() → CLOCK_MONOTONIC (perf's clock), for the requests' due times
  const offset = (monotonicMs() ?? NaN) - performance.now();
  const from = performance.now();
  return async (requests) => {
    const to = performance.now();
    const start = await before;
    const byName = new Map<string, number>();
    for (const [key, ms] of await threadsMs(pid)) {
      // one line per kind of thread: the id and a pool's number dropped ("Bun Pool 3#123" → "Bun Pool #")
      const name = key.replace(/#\d+$/, "").replace(/ ?[0-9]+$/, " #");
      byName.set(name, (byName.get(name) ?? 0) + ms - (start.get(key) ?? 0));
    }
    let loopSyncs = "n/a (no perf)";
    if (perf) {
      perf.kill("SIGINT");
      const text = await new Response(perf.stderr).text();
      // "-x ," lines: <comm>-<tid>,<count>,,<event>,...; the event loop's thread id is the pid.
      const counts = text.split("\n").filter((l) => l.startsWith(`${l.split(",")[0]!.replace(/-\d+$/, "")}-${pid},`)).map((l) => Number(l.split(",")[1]));
      loopSyncs = counts.length ? String(counts.reduce((a, b) => a + (Number.isFinite(b) ? b : 0), 0)) : `n/a (${text.trim().split("\n")[0] ?? "perf printed nothing"})`;
    }
    const cpu = [...byName].filter(([, ms]) => ms > 0).sort((a, b) => b[1] - a[1]).map(([n, ms]) => `${n} ${ms}`).join(", ");
    const runs = switches ? await switches.stop() : null;
    const sched = runs && Number.isFinite(offset)
      ? `\n  ${describe(runs, pid, from + offset, to + offset)}\n  ${slowestAgainstWaits(requests.map(([due, latency]) => [due + offset, latency]), runs, pid)}`
      : process.env.KITH_BENCH_STALLS === "2"
        ? "\n  waits for the core: n/a (perf sched:sched_switch needs root or perf_event_paranoid <= -1)"
        : "";
    return `fsyncs on the event loop: ${loopSyncs}; CPU ms by thread: ${cpu}${sched}`;
  };
}
const pin = (cpus: string, cmd: string[]) => (Bun.which("taskset") && !process.env.KITH_BENCH_NO_PIN ? ["taskset", "-c", cpus, ...cmd] : cmd);
const CPUS = navigator.hardwareConcurrency;
// The generator keeps off CPU 0 (the node's in the one-core phase).
if (Bun.which("taskset") && !process.env.KITH_BENCH_NO_PIN && CPUS > 1) Bun.spawnSync(["taskset", "-a", "-p", "-c", String(CPUS - 1), String(process.pid)]);

// ── senders: deterministic Ed25519 keys, cards served over TLS from this process ─────────────
const PKCS8 = Buffer.from("302e020100300506032b657004220420", "hex");
type Sender = { agentId: string; key: ReturnType<typeof createPrivateKey>; cardPath: string };
const senders: Sender[] = [];
for (let i = 0; i < SENDERS; i++) {
  const seed = new Bun.CryptoHasher("sha256").update(`bench-sender-${i}`).digest();
  const key = createPrivateKey({ key: Buffer.concat([PKCS8, seed]), format: "der", type: "pkcs8" });
  const pub = Buffer.from((createPublicKey(key).export({ format: "jwk" }) as { x: string }).x, "base64url");
  const agentId = `svc:${encodeEd25519PublicKey(pub)}`;
  senders.push({ agentId, key, cardPath: `/s${i}/ink/v1/${encodeURIComponent(agentId)}/agent.json` });
}
let cardPort = 0;
function cardOf(i: number): Record<string, unknown> {
  const s = senders[i]!;
  const mb = s.agentId.slice(4);
  return {
    protocol: "ink/0.1", agentId: s.agentId, handle: `sender${i}`, displayName: `Sender ${i}`,
    endpoint: `https://localhost:${cardPort}/s${i}/ink/v1/${s.agentId}/intent`, publicKeyMultibase: mb,
    capabilities: { intentsAccepted: ["ask"], intentsSent: ["ask"] }, availability: { timezone: "UTC" },
    keys: { signing: [{ keyId: "k1", algorithm: "Ed25519", publicKeyMultibase: mb, status: "active", validFrom: "2026-01-01T00:00:00.000Z" }], encryption: [{ keyId: "e1", algorithm: "X25519", publicKeyMultibase: encodeX25519PublicKey(new Uint8Array(32).fill(9)), status: "active", validFrom: "2026-01-01T00:00:00.000Z" }] },
    supportedProtocolVersions: ["ink/0.1"],
  };
}
const cardServer = Bun.serve({
  port: 0,
  hostname: "127.0.0.1",
  tls: { cert: await Bun.file(join(TLS, "localhost.crt")).text(), key: await Bun.file(join(TLS, "localhost.key")).text() },
  fetch(req): Response {
    const path = new URL(req.url).pathname;
    const i = Number(/^\/s(\d+)\//.exec(path)?.[1] ?? -1);
    return senders[i] ? Response.json(cardOf(i)) : new Response("not found", { status: 404 });
  },
});
cardPort = cardServer.port!;

// ── the node under test: a data directory with 400 connected senders ────────────────────────
const dataDir = join(work, "node");
// KITH_BENCH_BIN=<compiled kith>: run that binary instead of `bun src/main.ts` (its Workers included).
const NODE_ROOT = process.env.KITH_BENCH_AGAINST ? resolve(process.env.KITH_BENCH_AGAINST) : ROOT;
const kith = process.env.KITH_BENCH_BIN ? [resolve(process.env.KITH_BENCH_BIN)] : [bun, join(NODE_ROOT, "src/main.ts")];
const init = Bun.spawnSync([...kith, "init", "--data-dir", dataDir, "--handle", "bench", "--public-url", "https://bench.example"], { stdout: "pipe", stderr: "pipe" });
if (init.exitCode !== 0) throw new Error(init.stderr.toString());
const nodeAgentId = /agent id:\s+(\S+)/.exec(init.stdout.toString())![1]!;
{
  const db = new Database(join(dataDir, "kith.db"));
  const now = Date.now();
  const insert = db.prepare("INSERT INTO connections (id, principal, agent_id, card_url, status, initiated_by, created_at, updated_at) VALUES (?, ?, ?, ?, 'connected', 'us', ?, ?)");
  db.transaction(() => senders.forEach((s, i) => insert.run(`con_${i}`, `key:${s.agentId.slice(4)}`, s.agentId, `https://localhost:${cardServer.port}${s.cardPath}`, now, now)))();
  // Their cards as the node would have fetched and kept them (contacts, not strangers: the
  // stranger-fetch budget would otherwise leave most of 400 first contacts without a card for
  // minutes, and every request of theirs on the slower no-card path).
  const card = db.prepare("INSERT INTO peer_cards (principal, agent_id, card_url, card_json, fetched_at, expires_at, signing_set_observed, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, 1, ?, ?)");
  db.transaction(() => senders.forEach((s, i) => card.run(`key:${s.agentId.slice(4)}`, s.agentId, `https://localhost:${cardServer.port}${s.cardPath}`, JSON.stringify(cardOf(i)), now, now + 86_400_000, now, now)))();
  // The owner's default policy (draft_only: every intent becomes a pending action, the most writes),
  // with the per-sender hourly budget raised for a load test.
  db.prepare("INSERT INTO owner_policy (id, max_autonomy_level, max_inbound_rate, accept_foreign_agents, updated_at) VALUES (1, 'draft_only', 1000000000, 1, ?)").run(now);
  db.close();
}
const port = 20000 + Math.floor(Math.random() * 20000);
// INK §6.1: a sender signs the PATH of the endpoint the recipient's card publishes and posts there;
// read from the node's card once it runs. (Until hx-core this bench signed and posted to a
// percent-encoded path, `svc%3Az6Mk…`: every intent failed its first decision and was accepted by
// the node's retry with the request's own path, one more inspect and transport verify each.)
let path = "";

// ── signed requests (native signing) ─────────────────────────────────────────────────────────
let seq = 0;
type Signed = Uint8Array;
function request(): Signed {
  const n = seq++;
  const s = senders[n % SENDERS]!;
  const now = formatTimestamp(Date.now());
  const env: Record<string, unknown> = {
    protocol: "ink/0.1", id: `bench-${n}-${Math.random().toString(36).slice(2)}`, correlationId: `thread-${n}`, createdAt: now,
    from: s.agentId, to: nodeAgentId, intent: "ask", timestamp: now, nonce: `n${n}x${Math.random().toString(36).slice(2, 14)}aaaa`, signingKeyId: "k1",
    payload: { question: `Question ${n}: ${"Could you share what you learned about running agents at home? ".repeat(14)}`.slice(0, 1100), context: "bench" },
  };
  const unsigned = canonicalize(env);
  if (!unsigned.ok) throw new Error("jcs");
  env.signature = nodeSign(null, Buffer.from(bodySignatureDomain("ink/0.1", "svc") + unsigned.text), s.key).toString("base64url");
  const base = buildSignatureBase({ method: "POST", path, recipientDid: nodeAgentId, body: env, timestamp: now });
  if (!base.ok) throw new Error("base");
  const sig = nodeSign(null, Buffer.from(base.base), s.key).toString("base64url");
  // Client addresses from a pool of 16,384: the node's per-address limits (120 intents a minute) and
  // the 20,000 keys a limit bucket holds per window must not answer for the node's speed. One address
  // per request filled the bucket after 20,000 requests, and the rest of the phase were quick 429s.
  const a = n % 16_384;
  const headers = { "content-type": "application/json", authorization: `INK-Ed25519 ${sig} keyId=k1`, "x-forwarded-for": `10.0.${a >> 8}.${a & 255}` };
  return encodeRequest(`127.0.0.1:${port}`, "POST", path, headers, JSON.stringify(env));
}

// ── bare native verify on CPU 0 (the baseline), sampled around the phases ───────────────────
const bareSamples: number[] = [];
const sampleBare = () => bareSamples.push(...bareVerifySamples((cmd) => pin("0", cmd)));
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

// ── one phase: the node on `cpus`, latency at 1,000/s, then throughput at saturation ─────────
interface PhaseResult { label: string; cpus: string; throughput: number; statuses: Map<number, number>; p50: number; p99: number; cpuLatency: string; cpuSaturation: string; generatorUs: number; threads: string }
interface PhaseResult { label: string; cpus: string; throughput: number; statuses: Map<number, number>; p50: number; p99: number; cpuLatency: string; cpuSaturation: string; stalls: string | null; gc: string | null; steady: { p50: number; p99: number; cpu: string; stalls: string | null; gc: string | null } | null; steadySeconds: number; turns: string | null }
async function phase(cores: number, workers: string | undefined): Promise<PhaseResult> {
  const cpus = cores === 1 ? "0" : `0-${cores - 1}`;
  const label = `CPU ${cpus}${workers === undefined ? "" : `, ${workers} verify workers`}`;
  const profile = process.env.KITH_BENCH_PROFILE ? [`--cpu-prof`, `--cpu-prof-dir=${process.env.KITH_BENCH_PROFILE}`] : [];
  const turns = turnProbe(join(work, `turns-${cores}.jsonl`));
  const nice = process.env.KITH_BENCH_NICE ? ["nice", "-n", process.env.KITH_BENCH_NICE] : [];
  const node = Bun.spawn(pin(cpus, [...nice, ...(process.env.KITH_BENCH_BIN ? kith : [bun, ...profile, ...(turns?.args ?? []), join(NODE_ROOT, "src/main.ts")]), "serve", "--data-dir", dataDir, "--port", String(port), "--public-url", "https://bench.example", "--log-level", "warn"]), {
    env: { ...process.env, KITH_ALLOW_PRIVATE_PEERS: "1", KITH_TLS_CA_FILE: join(TLS, "ca.crt"), KITH_TRUST_PROXY: "1", ...(process.env.KITH_BENCH_GC ? { BUN_JSC_logGC: "1" } : {}), ...(workers === undefined ? {} : { KITH_VERIFY_WORKERS: workers }), ...turns?.env },
    stdout: process.env.KITH_EXP_STATS ? "inherit" : "ignore",
    stderr: process.env.KITH_BENCH_NODE_STDERR ? Bun.file(`${process.env.KITH_BENCH_NODE_STDERR}-${cpus}`) : process.env.KITH_EXP_STATS ? "inherit" : "pipe",
  });
  const gcLog = process.env.KITH_BENCH_GC && node.stderr instanceof ReadableStream ? readGcLog(node.stderr) : null;
  for (let i = 0; ; i++) {
    try {
      if ((await fetch(`http://127.0.0.1:${port}/health`)).ok) break;
    } catch {}
    if (i > 500) throw new Error("node did not start");
    await Bun.sleep(20);
  }
  const card = (await (await fetch(`http://127.0.0.1:${port}/.well-known/ink/agent.json`)).json()) as { endpoint: string };
  path = new URL(card.endpoint).pathname;
  const client = await rawClient("127.0.0.1", port, CONCURRENCY);
  const send = (r: Signed) => client.send(r);
  // Warm-up: a few requests per sender (the JIT tiers compile).
  for (let round = 0; round < 3; round++) await Promise.all(senders.map(async () => send(request())));

  // Latency: open loop at 1,000 requests per second, requests signed beforehand.
  const RATE = 1000;
  const total = RATE * Math.min(SECONDS, 10);
  /** Sends `requests` at RATE a second from now; `done(due, latency)` as each is answered (latency from its due time). */
  const openLoop = async (requests: Signed[], done: (due: number, latency: number) => void): Promise<number> => {
    const start = performance.now();
    const inFlight: Promise<void>[] = [];
    for (let i = 0; i < requests.length; ) {
      const now = performance.now();
      // Every request whose time has come leaves now; its latency counts from its due time.
      for (; i < requests.length && start + (i * 1000) / RATE <= now; i++) {
        const due = start + (i * 1000) / RATE;
        inFlight.push(send(requests[i]!).then(() => done(due, performance.now() - due)));
      }
      await Bun.sleep(Math.max(0, start + (i * 1000) / RATE - performance.now()));
    }
    await Promise.all(inFlight);
    return start;
  };
  // KITH_BENCH_LATENCY_WARMUP=<seconds>: that long at the same rate first, not measured (a node that
  // has run for a while: its JIT compilers done with the hot path). Default 0, as before.
  const warmup = Number(process.env.KITH_BENCH_LATENCY_WARMUP ?? 0);
  if (warmup > 0) await openLoop(Array.from({ length: Math.round(RATE * warmup) }, () => request()), () => {});
  const cpuLine = (a: number | null, b: number | null, requests: number, wallMs: number, mainA: number | null, mainB: number | null) =>
    a !== null && b !== null
      ? `${Math.round(((b - a) / requests) * 1000)} µs of node CPU per request, node busy ${Math.round(((b - a) / wallMs) * 100)}% of the time` +
        (mainA !== null && mainB !== null ? `; main thread ${Math.round(((mainB - mainA) / requests) * 1000)} µs per request, busy ${Math.round(((mainB - mainA) / wallMs) * 100)}%` : "")
      : "n/a";
  /** One measured window at RATE: latencies, the node's CPU, and the probes' lines. */
  const latencyWindow = async (suffix: string) => {
    const prepared = Array.from({ length: total }, () => request());
    const latencies: number[] = [];
    // KITH_BENCH_TRACE=<file>: each request's due time (epoch ms) and latency, to line up with the node's own events.
    const traced: Array<[number, number]> = [];
    const probe = await stallProbe(node.pid, `${cpus}${suffix}`);
    const inWindow: Array<[number, number]> = []; // due (performance.now()) and latency of each request, for the probe
    const latencyCpu0 = await cpuMs(node.pid);
    const latencyMain0 = await cpuMs(node.pid, true);
    const start = await openLoop(prepared, (due, latency) => {
      latencies.push(latency);
      inWindow.push([due, latency]);
      traced.push([performance.timeOrigin + due, latency]);
    });
    const latencyWall = performance.now() - start;
    const latencyCpu1 = await cpuMs(node.pid);
    const latencyMain1 = await cpuMs(node.pid, true);
    const stalls = probe ? await probe(inWindow) : null;
    const gc = gcLog ? describeGc(gcLog, start, start + latencyWall, inWindow) : null;
    if (process.env.KITH_BENCH_TRACE) await Bun.write(`${process.env.KITH_BENCH_TRACE}-${cpus}${suffix}.json`, JSON.stringify(traced));
    latencies.sort((a, b) => a - b);
    const pct = (p: number) => latencies[Math.min(latencies.length - 1, Math.floor((p / 100) * latencies.length))]!;
    return { p50: pct(50), p99: pct(99), cpu: cpuLine(latencyCpu0, latencyCpu1, total, latencyWall, latencyMain0, latencyMain1), stalls, gc };
  };
  await turns?.mark(node);
  const first = await latencyWindow("");
  await turns?.mark(node);
  // KITH_BENCH_STEADY=<seconds>: then that long more at the same rate, not measured, and a second
  // window of the same length on the same node: a node that has run for a while (its JIT compilers
  // done with the hot path), printed beside the first window's figures, which keep their meaning.
  const steadySeconds = Number(process.env.KITH_BENCH_STEADY ?? 0);
  let steady: Awaited<ReturnType<typeof latencyWindow>> | null = null;
  if (steadySeconds > 0) {
    await openLoop(Array.from({ length: Math.round(RATE * steadySeconds) }, () => request()), () => {});
    steady = await latencyWindow("-steady");
  }

  // Throughput: closed loop at fixed concurrency over requests signed beforehand (more than the
  // node can take in the window; what is left over is not sent).
  const stock = Array.from({ length: Math.round(SECONDS * 2500 * cores) }, () => request());
  let next = 0;
  let accepted = 0;
  let sent = 0;
  const statuses = new Map<number, number>();
  const deadline = performance.now() + SECONDS * 1000;
  await turns?.mark(node);
  const throughputCpu0 = await cpuMs(node.pid);
  const throughputMain0 = await cpuMs(node.pid, true);
  const threads0 = await threadsMs(node.pid);
  const generator0 = process.cpuUsage();
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (performance.now() < deadline && next < stock.length) {
        const status = await send(stock[next++]!);
        sent++;
        statuses.set(status, (statuses.get(status) ?? 0) + 1);
        if (status >= 200 && status < 300) accepted++;
      }
    }),
  );
  const wall = performance.now() - t0;
  const generator = process.cpuUsage(generator0);
  const throughputCpu1 = await cpuMs(node.pid);
  const throughputMain1 = await cpuMs(node.pid, true);
  await turns?.mark(node);
  const threads1 = await threadsMs(node.pid);
  if (next >= stock.length) console.error(`phase ${cpus}: ran out of pre-signed requests after ${Math.round(wall)} ms (the rate is still right)`);
  client.close();
  node.kill("SIGTERM");
  await node.exited;
  return {
    label,
    cpus,
    throughput: accepted / (wall / 1000),
    statuses,
    p50: first.p50,
    p99: first.p99,
    cpuLatency: first.cpu,
    cpuSaturation: cpuLine(throughputCpu0, throughputCpu1, sent, wall, throughputMain0, throughputMain1),
    // this process's CPU per request while the node is measured (it shares the last CPU with the two-core node)
    generatorUs: (generator.user + generator.system) / Math.max(1, sent),
    threads: [...threads1]
      .map(([name, ms]) => [name, Math.round(((ms - (threads0.get(name) ?? 0)) / Math.max(1, sent)) * 1000)] as const)
      .filter(([, us]) => us > 0)
      .sort((a, b) => b[1] - a[1])
      .map(([name, us]) => `${name} ${us}`)
      .join(", "),
    stalls: first.stalls,
    gc: first.gc,
    steady,
    steadySeconds,
    turns: turns ? await turns.report(total, sent) : null,
  };
}

sampleBare();
const results: PhaseResult[] = [];
for (const { cores, workers } of PHASES) {
  results.push(await phase(cores, workers));
  sampleBare();
}
const stored = (new Database(join(dataDir, "kith.db"), { readonly: true }).query("SELECT count(*) AS n FROM messages WHERE direction = 'in'").get() as { n: number }).n;
const bare = median(bareSamples);
const uptime = (await Bun.file("/proc/loadavg").text().catch(() => "n/a")).split(" ").slice(0, 3).join(" ");
cardServer.stop(true);
rmSync(work, { recursive: true, force: true });

console.log(`inbound bench: ${SECONDS}s at concurrency ${CONCURRENCY}, ${SENDERS} senders, synchronous=FULL, node ${process.env.KITH_BENCH_AGAINST ? NODE_ROOT : "this checkout"}, load average ${uptime}${process.env.KITH_BENCH_LATENCY_WARMUP ? `, latency after ${process.env.KITH_BENCH_LATENCY_WARMUP} s at 1000/s` : ""}`);
console.log(`bare native verify:     ${bare} verifies/s on CPU 0 (median of ${bareSamples.length} samples around the phases, ${Math.min(...bareSamples)}–${Math.max(...bareSamples)})`);
for (const r of results) {
  console.log(`── node on ${r.label}`);
  console.log(`accepted and stored:    ${Math.round(r.throughput)} intents/s   (statuses: ${[...r.statuses].map(([s, n]) => `${s}×${n}`).join(", ")})`);
  console.log(`ratio:                  ${(r.throughput / bare).toFixed(3)}x   (target >= 0.25x on one core)`);
  console.log(`latency at 1000/s:      p50 ${r.p50.toFixed(2)} ms, p99 ${r.p99.toFixed(2)} ms   (target p99 < 10 ms)`);
  console.log(`at 1000/s offered:      ${r.cpuLatency}`);
  if (r.stalls) console.log(`at 1000/s, stalls:      ${r.stalls}`);
  if (r.turns) console.log(`per-turn work (µs/req): ${r.turns}`);
  if (r.gc) console.log(`at 1000/s, GC:          ${r.gc}`);
  if (r.steady) {
    console.log(`latency at 1000/s after ${r.steadySeconds} s more: p50 ${r.steady.p50.toFixed(2)} ms, p99 ${r.steady.p99.toFixed(2)} ms   (the same node and load, later)`);
    console.log(`  at 1000/s offered:    ${r.steady.cpu}`);
    if (r.steady.stalls) console.log(`  stalls:               ${r.steady.stalls}`);
    if (r.steady.gc) console.log(`  GC:                   ${r.steady.gc}`);
  }
  console.log(`at saturation:          ${r.cpuSaturation}`);
  console.log(`threads at saturation:  ${r.threads} (µs per request, by thread name#id)`);
  console.log(`load generator:         ${Math.round(r.generatorUs)} µs of its CPU per request at saturation (on CPU ${CPUS - 1})`);
}
const one = results.find((r) => r.cpus === "0");
for (const r of results) if (one && r !== one) console.log(`${r.label} / CPU 0: ${(r.throughput / one.throughput).toFixed(2)}x   (target >= 1.5x with two cores)`);
console.log(`rows stored: ${stored} inbound messages (every 2xx is a committed row)`);
