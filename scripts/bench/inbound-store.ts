// The storage half of an accepted intent (issue 18), in process: receiveIntent — the policy and
// connection reads, the nonce, thread, message, event, pending action, audit event, connection
// touch, and the group commit with its fsync — for intents already authenticated (no signatures,
// no HTTP), with the node's background jobs running as `kith serve` runs them. Prints the
// process's CPU time per intent (process.cpuUsage deltas; wall-clock rates mean nothing on a
// shared box). With KITH_BENCH_ROOT=<another checkout> it runs that checkout's code too, in this
// same process, in alternating rounds (A/B/A/B), and prints the medians of both and their ratio.
// Also the main thread's CPU alone (what the event loop spends; Workers excluded) and the bytes
// handed to write(2) per intent.
// Usage: bun scripts/bench/inbound-store.ts [rounds=7] [intents per round=3000] [concurrency=64]
// KITH_BENCH_RATE=<intents/s>: each round submits its intents one at a time at that steady rate
// (an open loop, as inbound.ts's latency phase) instead of at a fixed concurrency: CPU per intent
// where most commits are small (1,000/s), and the time from submission to durable answer.
// KITH_BENCH_PAGES=<stored intents>: instead, the WAL frames of an intent alone in its COMMIT (and
// of 2 and 4 sharing one), by B-tree, after that many intents stored; no background jobs (their writes
// would mix in). Frames are what COMMIT writes and the next checkpoint copies.
import { Database } from "bun:sqlite";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";

const ROUNDS = Number(process.argv[2] ?? 7);
const PER_ROUND = Number(process.argv[3] ?? 3000);
const CONCURRENCY = Number(process.argv[4] ?? 64);
const SENDERS = 400;
const work = mkdtempSync(join(tmpdir(), "kith-bench-store-"));

interface Variant {
  label: string;
  round(n: number): Promise<{ cpu: number; main: number; written: number; perCommit: number }>;
  /** Frames per B-tree of `perCommit` intents committed together, summed over `samples` commits. */
  pages(samples: number, perCommit: number): Promise<Map<string, number>>;
  close(): Promise<void>;
}
const PAGES = Number(process.env.KITH_BENCH_PAGES ?? 0);
const RATE = Number(process.env.KITH_BENCH_RATE ?? 0);
/** Milliseconds from submission to a durable answer, by variant (paced rounds only). */
const waits = new Map<string, number[]>();
/** CPU µs of the main thread alone (the event loop; Workers excluded), from /proc (10 ms ticks). */
const mainThreadCpu = async () => {
  const fields = (await Bun.file(`/proc/self/task/${process.pid}/stat`).text().catch(() => "")).split(") ")[1]?.split(" ");
  return fields ? (Number(fields[11]) + Number(fields[12])) * 10_000 : NaN;
};
/** Bytes this process has handed to write(2)/pwrite(2) so far (Linux /proc; WAL frames and checkpoints): deterministic where CPU time is not. */
const written = async () => Number(/wchar: (\d+)/.exec(await Bun.file("/proc/self/io").text().catch(() => ""))?.[1] ?? NaN);

async function variant(label: string, root: string): Promise<Variant> {
  const dir = join(work, label);
  const init = Bun.spawnSync([process.execPath, join(root, "src/main.ts"), "init", "--data-dir", dir, "--handle", "bench", "--public-url", "https://bench.example"], { stdout: "pipe", stderr: "pipe" });
  if (init.exitCode !== 0) throw new Error(init.stderr.toString());
  const agentId = /agent id:\s+(\S+)/.exec(init.stdout.toString())![1]!;
  const senders = Array.from({ length: SENDERS }, (_, i) => ({ principal: `key:z6Mkbench${label}${i}`, agentId: `svc:z6Mkbench${label}${i}` }));
  {
    // 400 connected senders and the owner's default autonomy (draft_only: every intent also
    // becomes a pending action, the most writes), as scripts/bench/inbound.ts seeds them.
    const db = new Database(join(dir, "kith.db"));
    const now = Date.now();
    const insert = db.prepare("INSERT INTO connections (id, principal, agent_id, status, initiated_by, created_at, updated_at) VALUES (?, ?, ?, 'connected', 'us', ?, ?)");
    db.transaction(() => senders.forEach((s, i) => insert.run(`con_${i}`, s.principal, s.agentId, now, now)))();
    db.prepare("INSERT INTO owner_policy (id, max_autonomy_level, max_inbound_rate, accept_foreign_agents, updated_at) VALUES (1, 'draft_only', 1000000000, 1, ?)").run(now);
    db.close();
  }
  const m = async (p: string) => await import(join(root, "src", p));
  const { dataPaths } = await m("cli/paths.ts");
  const { openStorage } = await m("cli/storage.ts");
  const { closeDatabase } = await m("db/client.ts");
  const { systemClock } = await m("clock.ts");
  const { createUlidIds } = await m("ids.ts");
  const { createJsonLogger } = await m("log.ts");
  const { createKeyVault } = await m("adapters/key-vault.ts");
  const { createNode } = await m("node/create-node.ts");
  const { receiveIntent } = await m("domain/inbox/receive-intent.ts");
  const { formatTimestamp } = await m("ink/index.ts");
  const log = createJsonLogger({ level: "warn" });
  const paths = dataPaths(dir);
  const db = openStorage(paths, { clock: systemClock, log });
  const vault = createKeyVault(paths.keyFile, null);
  vault.all();
  const node = createNode({ db, clock: systemClock, ids: createUlidIds(systemClock), log, vault, node: { publicUrl: "https://bench.example", wordmark: "kith", version: "bench", mailboxUrl: null }, allowPrivatePeers: false, signatures: { size: 0 } as never });
  if (!PAGES) node.jobs.start();
  let seq = 0;
  const one = () => {
    const n = seq++;
    const s = senders[n % SENDERS]!;
    const now = formatTimestamp(Date.now());
    const envelope = {
      protocol: "ink/0.1", id: `bench-${n}-${Math.random().toString(36).slice(2)}`, correlationId: `thread-${n}`, createdAt: now, from: s.agentId, to: agentId,
      intent: "ask", timestamp: now, nonce: `n${n}x${Math.random().toString(36).slice(2, 14)}`, signingKeyId: "k1", signature: "x".repeat(86),
      payload: { question: `Question ${n}: ${"Could you share what you learned about running agents at home? ".repeat(14)}`.slice(0, 1100), context: "bench" },
    };
    const actor = { kind: "agent", principal: s.principal, agentId: s.agentId, ip: null, card: null, keys: { signing: [] }, nonce: envelope.nonce };
    return receiveIntent(node.ctx(actor), { request: { envelope, sealed: false, keyId: "k1", replayed: false }, learned: null, cardHint: null });
  };
  return {
    label,
    async round(count) {
      const before = process.cpuUsage();
      const mainBefore = await mainThreadCpu();
      const wrote = await written();
      const writes = node.ctx({ kind: "system", job: "bench" }).writes;
      const commits = writes.commits;
      if (RATE > 0) {
        // Open loop: intent i is submitted at start + i/RATE, whatever the answers do.
        const start = performance.now();
        const answers: Promise<unknown>[] = [];
        const mine = waits.get(label) ?? waits.set(label, []).get(label)!;
        for (let i = 0; i < count; ) {
          for (; i < count && start + (i * 1000) / RATE <= performance.now(); i++) {
            const t = performance.now();
            answers.push(one().then((r: { ok: boolean }) => {
              if (!r.ok) throw new Error(`${label}: ${JSON.stringify(r)}`);
              mine.push(performance.now() - t);
            }));
          }
          await Bun.sleep(Math.max(0, start + (i * 1000) / RATE - performance.now()));
        }
        await Promise.all(answers);
      }
      for (let done = 0; RATE === 0 && done < count; done += CONCURRENCY) {
        const results = await Promise.all(Array.from({ length: Math.min(CONCURRENCY, count - done) }, one));
        const bad = results.find((r: { ok: boolean }) => !r.ok);
        if (bad) throw new Error(`${label}: ${JSON.stringify(bad)}`);
      }
      // Let the background jobs catch up inside the measured window (they run on the same loop in `kith serve`).
      await Bun.sleep(1200);
      const used = process.cpuUsage(before);
      const perCommit = count / (writes.commits - commits); // the jobs' own commits count too
      return { cpu: (used.user + used.system) / count, main: ((await mainThreadCpu()) - mainBefore) / count, written: ((await written()) - wrote) / count, perCommit };
    },
    async pages(samples, perCommit) {
      const writes = node.ctx({ kind: "system", job: "bench" }).writes;
      const sqlite = db.$client as Database;
      const frames = new Map<string, number>();
      for (let i = 0; i < samples; i++) {
        await writes.drain();
        await writes.checkpoints?.close(); // its Worker must not copy frames away under us
        for (let tries = 0; (sqlite.query("PRAGMA wal_checkpoint(TRUNCATE)").get() as { busy: number }).busy && tries < 100; tries++) await Bun.sleep(10);
        await Promise.all(Array.from({ length: perCommit }, one)); // one turn: one group commit
        const wal = readFileSync(`${paths.db}-wal`);
        const pageSize = wal.readUInt32BE(8);
        const pagesWritten = new Set<number>();
        for (let at = 32; at + 24 + pageSize <= wal.length; at += 24 + pageSize) pagesWritten.add(wal.readUInt32BE(at));
        const owner = new Map<number, string>();
        for (const row of sqlite.query("SELECT name, pageno FROM dbstat").all() as Array<{ name: string; pageno: number }>) owner.set(row.pageno, row.name);
        for (const page of pagesWritten) {
          const name = page === 1 ? "page 1 (header, schema)" : (owner.get(page) ?? "free list");
          frames.set(name, (frames.get(name) ?? 0) + 1);
        }
      }
      return frames;
    },
    async close() {
      const stats = node.ctx({ kind: "system", job: "bench" }).writes.checkpoints?.stats;
      if (stats) console.log(`${label.padEnd(5)} background WAL checkpoints: ${stats.runs}${stats.failed ? " (the checkpointer failed)" : ""}`);
      await node.close();
      closeDatabase(db);
    },
  };
}

// Event-loop stalls while a round runs: the gaps between the turns of a 1 ms ticker (a checkpoint
// in COMMIT on the event loop shows as a long gap).
const gaps: Record<string, number[]> = {};
let ticking: string | null = null;
let lastTick = performance.now();
setInterval(() => {
  const now = performance.now();
  if (ticking) (gaps[ticking] ??= []).push(now - lastTick);
  lastTick = now;
}, 1).unref();
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const variants = [await variant("this", resolve(import.meta.dir, "../.."))];
if (process.env.KITH_BENCH_ROOT) variants.push(await variant("base", resolve(process.env.KITH_BENCH_ROOT)));
if (PAGES) {
  const SAMPLES = 40;
  for (const v of variants) {
    for (let done = 0; done < PAGES; done += PER_ROUND) await v.round(Math.min(PER_ROUND, PAGES - done));
    for (const perCommit of [1, 2, 4]) {
      const frames = [...(await v.pages(SAMPLES, perCommit))].sort((a, b) => b[1] - a[1]);
      const total = frames.reduce((sum, [, n]) => sum + n, 0) / SAMPLES / perCommit;
      console.log(`${v.label}: ${PAGES} intents stored, ${perCommit} a COMMIT: ${total.toFixed(1)} WAL frames per intent (${SAMPLES} commits)`);
      for (const [name, n] of frames) console.log(`  ${(n / SAMPLES / perCommit).toFixed(2).padStart(6)}  ${name}`);
    }
    await v.close();
  }
  rmSync(work, { recursive: true, force: true });
  process.exit(0);
}
for (const v of variants) await v.round(500); // warm-up: JIT, statement preparation, jobs' first pass
const samples = new Map<string, number[]>(variants.map((v) => [v.label, []]));
const bytes = new Map<string, number[]>(variants.map((v) => [v.label, []]));
const mains = new Map<string, number[]>(variants.map((v) => [v.label, []]));
const perCommits = new Map<string, number[]>(variants.map((v) => [v.label, []]));
for (let r = 0; r < ROUNDS; r++)
  for (const v of r % 2 ? [...variants].reverse() : variants) {
    ticking = v.label;
    const x = await v.round(PER_ROUND);
    ticking = null;
    samples.get(v.label)!.push(x.cpu);
    bytes.get(v.label)!.push(x.written);
    mains.get(v.label)!.push(x.main);
    perCommits.get(v.label)!.push(x.perCommit);
  }
console.log(`inbound storage bench: ${ROUNDS} rounds of ${PER_ROUND} intents ${RATE ? `at ${RATE}/s` : `at concurrency ${CONCURRENCY}`}, ${SENDERS} senders, load average ${(await Bun.file("/proc/loadavg").text().catch(() => "?")).split(" ").slice(0, 3).join(" ")}`);
for (const [label, xs] of samples) console.log(`${label.padEnd(5)} µs of CPU per intent (incl. 1.2 s idle per round): median ${median(xs).toFixed(1)}   rounds: ${xs.map((x) => x.toFixed(0)).join(" ")}`);
for (const [label, xs] of mains) console.log(`${label.padEnd(5)} µs of main-thread CPU per intent: median ${median(xs).toFixed(1)}   rounds: ${xs.map((x) => x.toFixed(0)).join(" ")}`);
for (const [label, xs] of Object.entries(gaps)) {
  const sorted = [...xs].sort((a, b) => a - b);
  const q = (p: number) => sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))]!.toFixed(1);
  console.log(`${label.padEnd(5)} event-loop gaps (1 ms ticker): p50 ${q(0.5)} ms, p99 ${q(0.99)} ms, p99.9 ${q(0.999)} ms, max ${q(1)} ms, ${sorted.filter((g) => g > 10).length} over 10 ms`);
}
for (const [label, xs] of perCommits) console.log(`${label.padEnd(5)} write-queue jobs per COMMIT (background jobs' included): median ${median(xs).toFixed(2)}`);
for (const [label, xs] of waits) {
  const sorted = [...xs].sort((a, b) => a - b);
  const q = (p: number) => sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))]!.toFixed(2);
  console.log(`${label.padEnd(5)} submission to durable answer: p50 ${q(0.5)} ms, p90 ${q(0.9)} ms, p99 ${q(0.99)} ms`);
}
// Both variants share the process: with two, a round's bytes include whatever the other node's jobs wrote meanwhile (little).
for (const [label, xs] of bytes) console.log(`${label.padEnd(5)} KiB written per intent (WAL frames, checkpoints): median ${(median(xs) / 1024).toFixed(1)}`);
if (variants.length === 2) console.log(`this / base: ${(median(samples.get("this")!) / median(samples.get("base")!)).toFixed(3)}x`);
for (const v of variants) await v.close();
rmSync(work, { recursive: true, force: true });
