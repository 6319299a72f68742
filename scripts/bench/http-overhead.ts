// The HTTP stack's fixed cost (issues 14 and 18): CPU µs per request through the real app
// in-process (`app.handle`, no socket) for three requests that do little work of their own, next
// to a minimal Elysia app with one route declared the same way (the floor: what Elysia itself
// costs here). CPU time, not wall time: the machine is shared (process.cpuUsage deltas).
//   health  GET /health (its handler runs a database round trip)
//   ext401  GET /ext/v1/identity without a token: the extension plugin's first refusal (401)
//   ink400  POST /ink/v1/:agentId/intent with `{}` and its Content-Length (as a socket's request
//           has): read, parsed, refused as invalid_envelope (400)
//   floor   GET /health on `new Elysia().get("/health", …, {response})`, a constant answer
// KITH_BENCH_BASE=/work/main also boots that checkout's app in this process and interleaves the
// two (A/B/A/B per run), so before and after come from the same run.
// Usage: bun scripts/bench/http-overhead.ts [requests=5000] [concurrency=32] [runs=7]
import { resolve } from "node:path";
import * as v from "valibot";

const REQUESTS = Number(process.argv[2] ?? 5000);
const CONCURRENCY = Number(process.argv[3] ?? 32);
const RUNS = Number(process.argv[4] ?? 7);
/** The INK route's per-address limit is 120 a minute: the node's clock moves a window after each batch. */
const PER_WINDOW = 100;

interface Booted {
  app: { handle(request: Request): Promise<Response> };
  agentId: string | null;
  clock: { advance(ms: number): void };
  logLines: unknown[];
  close(): void;
}

const roots = [{ label: "this", root: resolve(import.meta.dir, "../..") }];
if (process.env.KITH_BENCH_BASE) roots.unshift({ label: "base", root: resolve(process.env.KITH_BENCH_BASE) });

/** One checkout's app and floor: imported from its own files and its own node_modules. */
async function load(root: string) {
  const { bootTestApp } = (await import(`${root}/test/helpers/boot.ts`)) as { bootTestApp(): Booted };
  const { Elysia } = (await import(`${root}/node_modules/elysia/dist/index.mjs`)) as typeof import("elysia");
  const node = bootTestApp();
  const Health = v.object({ status: v.picklist(["ok", "degraded"]), version: v.string(), database: v.picklist(["ok", "unavailable"]), agent: v.boolean() });
  const floor = new Elysia().get("/health", () => ({ status: "ok" as const, version: "0.0.0", database: "ok" as const, agent: true }), { response: { 200: Health } });
  const lines: Record<string, { handle(r: Request): Promise<Response>; make(): Request; status: number }> = {
    health: { handle: (r) => node.app.handle(r), make: () => new Request("http://localhost/health"), status: 200 },
    ext401: { handle: (r) => node.app.handle(r), make: () => new Request("http://localhost/ext/v1/identity"), status: 401 },
    ink400: {
      handle: (r) => node.app.handle(r),
      make: () => new Request(`http://localhost/ink/v1/${node.agentId}/intent`, { method: "POST", headers: { "content-type": "application/json", "content-length": "2" }, body: "{}" }),
      status: 400,
    },
    floor: { handle: (r) => floor.handle(r), make: () => new Request("http://localhost/health"), status: 200 },
  };
  return { node, lines };
}

const cpuNow = () => {
  const u = process.cpuUsage();
  return u.user + u.system;
};

/** CPU µs per request for n requests (built before timing), CONCURRENCY at a time. */
async function measure(node: Booted, line: { handle(r: Request): Promise<Response>; make(): Request; status: number }, n: number): Promise<number> {
  let cpu = 0;
  for (let done = 0; done < n; ) {
    const batch = Math.min(PER_WINDOW, n - done);
    const requests = Array.from({ length: batch }, line.make);
    const cpu0 = cpuNow();
    for (let i = 0; i < requests.length; i += CONCURRENCY) {
      const answers = await Promise.all(requests.slice(i, i + CONCURRENCY).map((r) => line.handle(r)));
      for (const a of answers) if (a.status !== line.status) throw new Error(`answered ${a.status}, expected ${line.status}: ${await a.text()}`);
    }
    cpu += cpuNow() - cpu0;
    done += batch;
    node.clock.advance(61_000);
    node.logLines.length = 0; // the test logger keeps every line; production writes them out
  }
  return cpu / n;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const apps = await Promise.all(roots.map(async (r) => ({ ...r, ...(await load(r.root)) })));
const names = Object.keys(apps[0]!.lines);
const results = new Map<string, number[]>();
for (const a of apps) for (const name of names) await measure(a.node, a.lines[name]!, 1000); // warm-up: JIT, caches
for (let run = 0; run < RUNS; run++) {
  const parts: string[] = [];
  for (const name of names) {
    for (const a of apps) {
      const us = await measure(a.node, a.lines[name]!, REQUESTS);
      const key = `${name} ${a.label}`;
      results.set(key, [...(results.get(key) ?? []), us]);
      parts.push(`${key} ${us.toFixed(1)}`);
    }
  }
  console.log(`run ${run + 1}: CPU µs/request: ${parts.join(", ")}`);
}
console.log(`median of ${RUNS} runs, CPU µs per request (${REQUESTS} requests, ${CONCURRENCY} at a time):`);
for (const name of names) {
  const cells = apps.map((a) => `${a.label} ${median(results.get(`${name} ${a.label}`)!).toFixed(1)}`);
  const ratio = apps.length === 2 ? ` (this/base ${median(results.get(`${name} this`)!.map((t, i) => t / results.get(`${name} base`)![i]!)).toFixed(2)})` : "";
  console.log(`  ${name.padEnd(7)} ${cells.join("  ")}${ratio}`);
}
for (const a of apps) a.node.close();
