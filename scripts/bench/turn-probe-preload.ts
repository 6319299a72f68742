// Diagnostics for inbound-turns work (issue 18), preloaded into a benchmarked node
// (`KITH_BENCH_PRELOAD=1 bun scripts/bench/inbound.ts …`): the main thread's CPU time inside the
// callbacks of setImmediate, setTimeout and setInterval, by the callback's name (the write queue's
// group commit is `flush`: BEGIN, the jobs, COMMIT), and how many ran. On SIGUSR2 the totals so far
// and the main thread's CPU are appended as one JSON line to $KITH_TURN_OUT; the bench sends it at
// the edges of its measured windows and prints the difference per request (turn-probe-report.ts).
// inbound-turns.ts imports it and reads the same totals in process (turnTotals).
import { appendFileSync } from "node:fs";

/**
 * This thread's CPU time in µs, from clock_gettime(CLOCK_THREAD_CPUTIME_ID) (Linux, through bun:ffi):
 * the kernel brings a running thread's time up to date for it. process.threadCpuUsage (getrusage)
 * does not: between the scheduler's updates its total lags, and an interval that contains a wake-up
 * of another thread (the fsync handed to the pool) is credited with everything since the last
 * update: 370 µs of "CPU" in a 130 µs call was measured that way.
 */
export const cpu = (() => {
  try {
    const { dlopen, FFIType, ptr } = require("bun:ffi") as typeof import("bun:ffi");
    const { symbols } = dlopen("libc.so.6", { clock_gettime: { args: [FFIType.i32, FFIType.ptr], returns: FFIType.i32 } });
    const ts = new BigInt64Array(2);
    const at = ptr(ts);
    const CLOCK_THREAD_CPUTIME_ID = 3;
    return () => (symbols.clock_gettime(CLOCK_THREAD_CPUTIME_ID, at), Number(ts[0]!) * 1e6 + Number(ts[1]!) / 1000);
  } catch {
    return () => {
      const t = process.threadCpuUsage();
      return t.user + t.system;
    };
  }
})();
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
// Inside the flush: the group commit's synchronous toggles, BEGIN IMMEDIATE and its COMMIT (the WAL frames are written
// there), told apart from the read transactions' COMMIT by the BEGIN IMMEDIATE before it.
const { Database } = await import("bun:sqlite");
const prepare = Database.prototype.prepare;
let writing = false;
const account = (name: string, t0: number) => {
  const t = totals.get(name) ?? { us: 0, n: 0 };
  t.us += cpu() - t0;
  t.n++;
  totals.set(name, t);
};
Database.prototype.prepare = function (this: InstanceType<typeof Database>, text: string, ...rest: unknown[]) {
  const statement = (prepare as Function).call(this, text, ...rest);
  if (text === "BEGIN IMMEDIATE" || text === "COMMIT" || text.startsWith("PRAGMA synchronous")) {
    const run = statement.run.bind(statement);
    statement.run = (...args: unknown[]) => {
      const pragma = text.startsWith("PRAGMA");
      const name = pragma ? "  of which PRAGMA synchronous" : text === "COMMIT" ? (writing ? "  of which the write COMMIT" : null) : "  of which BEGIN IMMEDIATE";
      if (!pragma) writing = text !== "COMMIT";
      const t0 = cpu();
      try {
        return run(...args);
      } finally {
        if (name) account(name, t0);
      }
    };
  }
  return statement;
} as typeof prepare;
process.on("SIGUSR2", () => {
  const out = process.env.KITH_TURN_OUT;
  if (!out) return;
  appendFileSync(out, `${JSON.stringify({ at: Date.now(), main: cpu(), totals: Object.fromEntries(totals) })}\n`);
});

/** The totals so far (CPU µs and calls by callback or statement name), for an in-process bench. */
export function turnTotals(): Map<string, { us: number; n: number }> {
  return new Map([...totals].map(([k, v]) => [k, { ...v }]));
}
