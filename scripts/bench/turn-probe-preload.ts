// Diagnostics for inbound-turns work (issue 18), preloaded into a benchmarked node
// (`KITH_BENCH_PRELOAD=1 bun scripts/bench/inbound.ts …`): the main thread's CPU time inside the
// callbacks of setImmediate, setTimeout and setInterval, by the callback's name (the write queue's
// group commit is `flush`: BEGIN, the jobs, COMMIT), and how many ran. On SIGUSR2 the totals so far
// and the main thread's CPU are appended as one JSON line to $KITH_TURN_OUT; the bench sends it at
// the edges of its measured windows and prints the difference per request.
import { appendFileSync } from "node:fs";

const cpu = () => {
  const t = process.threadCpuUsage();
  return t.user + t.system;
};
const totals = new Map<string, { us: number; n: number }>();
const names = new WeakMap<Function, string>();
const nameOf = (fn: Function) => {
  let name = names.get(fn);
  if (name === undefined) {
    name = fn.name || `anon:${fn.toString().replace(/\s+/g, " ").slice(0, 60)}`;
    names.set(fn, name);
  }
  return name;
};
const timed = (fn: Function) => {
  const name = nameOf(fn);
  return function (this: unknown, ...args: unknown[]) {
    const t0 = cpu();
    try {
      return fn.apply(this, args);
    } finally {
      const t = totals.get(name) ?? { us: 0, n: 0 };
      t.us += cpu() - t0;
      t.n++;
      totals.set(name, t);
    }
  };
};
for (const key of ["setImmediate", "setTimeout", "setInterval"] as const) {
  const real = globalThis[key] as (fn: Function, ...rest: unknown[]) => unknown;
  (globalThis as Record<string, unknown>)[key] = (fn: unknown, ...rest: unknown[]) => real((typeof fn === "function" ? timed(fn) : fn) as Function, ...rest);
}
process.on("SIGUSR2", () => {
  const out = process.env.KITH_TURN_OUT;
  if (!out) return;
  appendFileSync(out, `${JSON.stringify({ at: Date.now(), main: cpu(), totals: Object.fromEntries(totals) })}\n`);
});
