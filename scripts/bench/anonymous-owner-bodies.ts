// Anonymous bodies on owner routes (review of issue 21, defect 7): what strangers sending large JSON
// to an owner route without a token cost everyone else. A real `kith serve` process on loopback;
// `/health` latency measured idle, then while eight anonymous clients post 4 MiB JSON to
// `/api/svc/import/linkedin` back to back for five seconds; the node's RSS before and after, and the
// statuses the clients got. Reported: medians of `rounds` runs, and the loaded/idle ratio of each run
// (machines are shared and noisy: read the ratio, not the milliseconds).
// The clients run in a process of their own, so their own uploads do not slow the prober.
// Usage: bun scripts/bench/anonymous-owner-bodies.ts [rounds=3]
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";

const BIG = JSON.stringify({ csv: "A".repeat(4 * 1024 * 1024) });
if (process.argv[2] === "--clients") await clients(process.argv[3]!, Number(process.argv[4]));

const ROUNDS = Number(process.argv[2] ?? 3);
const ROOT = resolve(import.meta.dir, "../..");
const dir = mkdtempSync(join(tmpdir(), "kith-bench-anon-"));
const port = 20_000 + Math.floor(Math.random() * 20_000);
const base = `http://127.0.0.1:${port}`;
const node = Bun.spawn([process.execPath, "src/main.ts", "serve", "--data-dir", dir, "--port", String(port)], {
  cwd: ROOT,
  env: { ...process.env, KITH_OWNER_EMAIL: "owner@example.com", KITH_TRUST_PROXY: "1", KITH_LOG_LEVEL: "silent" },
  stdout: "ignore",
  stderr: "ignore",
});
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

async function rssMiB(): Promise<number> {
  const status = await Bun.file(`/proc/${node.pid}/status`).text();
  return Number(status.match(/VmRSS:\s+(\d+) kB/)![1]) / 1024;
}

async function healthLatencies(n: number): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < n; i++) {
    await Bun.sleep(100);
    const t0 = performance.now();
    await (await fetch(`${base}/health`)).arrayBuffer();
    out.push(performance.now() - t0);
  }
  return out;
}

async function round(): Promise<{ idle: number; loaded: number; rssBefore: number; rssAfter: number; statuses: Record<number, number> }> {
  const idle = median(await healthLatencies(20));
  const rssBefore = await rssMiB();
  const load = Bun.spawn([process.execPath, import.meta.path, "--clients", base, "5000"], { stdout: "pipe", stderr: "inherit" });
  const loaded = median(await healthLatencies(40)); // ~5 s
  const rssAfter = await rssMiB();
  const statuses = JSON.parse(await new Response(load.stdout).text()) as Record<number, number>;
  await load.exited;
  return { idle, loaded, rssBefore, rssAfter, statuses };
}

try {
  for (let i = 0; i < 100; i++) {
    if (await fetch(`${base}/health`).then((r) => r.ok, () => false)) break;
    await Bun.sleep(100);
  }
  const rounds = [];
  for (let i = 0; i < ROUNDS; i++) {
    const r = await round();
    rounds.push(r);
    console.log(`round ${i + 1}: /health idle ${r.idle.toFixed(2)} ms, loaded ${r.loaded.toFixed(2)} ms (x${(r.loaded / r.idle).toFixed(1)}); RSS ${r.rssBefore.toFixed(0)} → ${r.rssAfter.toFixed(0)} MiB; statuses ${JSON.stringify(r.statuses)}`);
  }
  console.log(
    `median of ${ROUNDS}: /health idle ${median(rounds.map((r) => r.idle)).toFixed(2)} ms, under 8 anonymous 4 MiB clients ${median(rounds.map((r) => r.loaded)).toFixed(2)} ms ` +
      `(ratio x${median(rounds.map((r) => r.loaded / r.idle)).toFixed(1)}); RSS after ${median(rounds.map((r) => r.rssAfter)).toFixed(0)} MiB`,
  );
} finally {
  node.kill();
  await node.exited;
  rmSync(dir, { recursive: true, force: true });
}

/** The load: eight anonymous clients posting 4 MiB JSON back to back for `ms`; prints the statuses they got. */
async function clients(target: string, ms: number): Promise<never> {
  const statuses: Record<number, number> = {};
  const until = Date.now() + ms;
  const client = async (i: number) => {
    while (Date.now() < until) {
      const res = await fetch(`${target}/api/svc/import/linkedin`, { method: "POST", headers: { "content-type": "application/json", "x-forwarded-for": `198.51.100.${i}` }, body: BIG });
      await res.arrayBuffer();
      statuses[res.status] = (statuses[res.status] ?? 0) + 1;
    }
  };
  await Promise.all(Array.from({ length: 8 }, (_, i) => client(i + 1)));
  console.log(JSON.stringify(statuses));
  process.exit(0);
}
