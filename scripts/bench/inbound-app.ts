// An accepted INK intent through the whole app in process (issue 18): `app.handle` of a signed
// `ping` from a connected sender — the per-address limit, the raw body, the INK core, both verifies,
// the reads before them, receiveIntent's transaction (nonce, message, thread, event, pending action,
// audit event) and its group commit with the WAL fsync — with no socket and no load generator
// competing for the core. Prints CPU µs per accepted intent: the whole process (fsync thread and
// JIT/GC threads included) and the main thread alone (process.threadCpuUsage), medians of runs.
// Bob's card is stored as a fetched contact's is (KITH_BENCH_NO_CARD=1: no card on record, the
// genesis key and the connection's card-URL lookup on every request).
// KITH_BENCH_BASE=<another checkout> boots that checkout's node in this process too and alternates
// (A/B/A/B), so before and after come from one run on a shared machine.
// Usage: bun scripts/bench/inbound-app.ts [intents per run=2000] [concurrency=32] [runs=7]
import { resolve } from "node:path";
import { loadInboundNode } from "./inbound-app-node.ts";

const PER_RUN = Number(process.argv[2] ?? 2000);
const CONCURRENCY = Number(process.argv[3] ?? 32);
const RUNS = Number(process.argv[4] ?? 7);
const roots = [{ label: "this", root: resolve(import.meta.dir, "../..") }];
if (process.env.KITH_BENCH_BASE) roots.unshift({ label: "base", root: resolve(process.env.KITH_BENCH_BASE) });

const threadCpu = () => {
  const t = (process as unknown as { threadCpuUsage?: () => { user: number; system: number } }).threadCpuUsage?.();
  return t ? t.user + t.system : Number.NaN;
};
const processCpu = () => {
  const u = process.cpuUsage();
  return u.user + u.system;
};

async function measure(a: Awaited<ReturnType<typeof loadInboundNode>>, n: number): Promise<{ all: number; main: number }> {
  const requests = a.sign(n).map(a.request); // signed before timing
  const all0 = processCpu();
  const main0 = threadCpu();
  for (let i = 0; i < requests.length; i += CONCURRENCY) {
    const answers = await Promise.all(requests.slice(i, i + CONCURRENCY).map((r) => a.node.app.handle(r)));
    for (const r of answers) if (r.status !== 202) throw new Error(`answered ${r.status}: ${await r.text()}`);
  }
  const result = { all: (processCpu() - all0) / n, main: (threadCpu() - main0) / n };
  a.node.logLines.length = 0; // the test logger keeps every line; production writes them out
  return result;
}

const median = (xs: number[]) => [...xs].sort((x, y) => x - y)[Math.floor(xs.length / 2)]!;
const apps = [];
for (const r of roots) apps.push(await loadInboundNode(r.label, r.root));
for (const a of apps) await measure(a, 500); // warm-up: JIT tiers, caches
const results = new Map<string, { all: number[]; main: number[] }>();
for (let run = 0; run < RUNS; run++) {
  const parts: string[] = [];
  for (const a of run % 2 ? [...apps].reverse() : apps) {
    const r = await measure(a, PER_RUN);
    const acc = results.get(a.label) ?? { all: [], main: [] };
    acc.all.push(r.all);
    acc.main.push(r.main);
    results.set(a.label, acc);
    parts.push(`${a.label} ${r.all.toFixed(1)} (main ${r.main.toFixed(1)})`);
  }
  console.log(`run ${run + 1}: CPU µs per accepted intent: ${parts.join(", ")}`);
}
console.log(`median of ${RUNS} runs of ${PER_RUN} accepted intents, ${CONCURRENCY} at a time, CPU µs per intent:`);
for (const a of apps) {
  const r = results.get(a.label)!;
  console.log(`  ${a.label.padEnd(5)} process ${median(r.all).toFixed(1)}   main thread ${median(r.main).toFixed(1)}`);
}
if (apps.length === 2) {
  const [b, t] = [results.get("base")!, results.get("this")!];
  console.log(`  this/base (median of per-run ratios): process ${median(t.all.map((x, i) => x / b.all[i]!)).toFixed(3)}x, main thread ${median(t.main.map((x, i) => x / b.main[i]!)).toFixed(3)}x`);
}
for (const a of apps) {
  // Which key verified the stored intents: the card's key id, or "bootstrap" (the genesis key, no card).
  const keys = (a.node.db.$client as unknown as { query(sql: string): { all(): Array<{ keyId: string; n: number }> } }).query("SELECT key_id AS keyId, count(*) AS n FROM messages GROUP BY key_id").all();
  console.log(`  ${a.label.padEnd(5)} stored intents by key id: ${keys.map((k) => `${k.keyId} ${k.n}`).join(", ")}`);
  await a.node.collaborators.writes.close();
  a.node.close();
}
