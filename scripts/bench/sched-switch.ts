// What takes the node's event loop off its core, from the kernel's own record (`perf record -e
// sched:sched_switch`, root or perf_event_paranoid <= -1; Linux): each time the event loop is
// switched out while still runnable (preempted), how long until it runs again and which threads ran
// meanwhile (the node's JIT compilers, GC helpers, Workers, or other processes), and when the JIT
// compilers ran. Unlike a p99 on a shared machine, this tells the node's own threads apart from the
// neighbours'. Used by inbound.ts under KITH_BENCH_STALLS=2.
import { dlopen, FFIType, ptr } from "bun:ffi";
import { rmSync } from "node:fs";

/** A stretch of CPU time one thread had on one CPU (ms, CLOCK_MONOTONIC). */
interface Run { pid: number; tid: number; cpu: number; comm: string; start: number; end: number }
/** A moment a thread became runnable without running: preempted (switched out runnable) or woken, and by whom. */
interface Ready { tid: number; cpu: number; at: number; how: "preempted" | "woken"; waker?: { pid: number; comm: string } }
/** What the kernel recorded: each thread's runs and the moments threads became ready. */
export interface Switches { runs: Run[]; ready: Ready[] }
/** The event loop ready but off its CPU, and the runs on that CPU meanwhile (ms by kind of thread). */
export interface Wait { start: number; end: number; how: Ready["how"]; by: Map<string, number> }

const SWITCH = /\s(\d+)\/(\d+)\s+\[(\d+)\]\s+([\d.]+):\s+sched:sched_switch:\s+prev_comm=(.*) prev_pid=(\d+) prev_prio=\d+ prev_state=(\S+) ==> next_comm=(.*) next_pid=(\d+) next_prio=\d+/;
const WAKEUP = /^\s*(.*?)\s+(\d+)\/(\d+)\s+\[(\d+)\]\s+([\d.]+):\s+sched:sched_wakeup:\s+comm=.* pid=(\d+) prio=\d+ target_cpu=(\d+)/;

/** CLOCK_MONOTONIC in ms (perf's `-k mono` clock), so a request's due time can be placed among the switches. */
export function monotonicMs(): number | null {
  try {
    const libc = dlopen(process.platform === "linux" ? "libc.so.6" : "libc.dylib", { clock_gettime: { args: [FFIType.i32, FFIType.ptr], returns: FFIType.i32 } });
    const ts = new BigInt64Array(2);
    libc.symbols.clock_gettime(1, ptr(ts));
    libc.close();
    return Number(ts[0]!) * 1000 + Number(ts[1]!) / 1e6;
  } catch {
    return null;
  }
}

/** Starts recording switches and wake-ups on every CPU; `stop` ends it and parses them (null: no perf, or not allowed). */
export async function recordSwitches(file: string, pin: (cmd: string[]) => string[] = (cmd) => cmd): Promise<{ stop: () => Promise<Switches | null> } | null> {
  if (!Bun.which("perf")) return null;
  const rec = Bun.spawn(pin(["perf", "record", "-q", "-k", "mono", "-e", "sched:sched_switch", "-e", "sched:sched_wakeup", "-a", "-o", file]), { stdout: "ignore", stderr: "pipe" });
  await Bun.sleep(400); // perf needs a moment before it records
  if (rec.exitCode !== null) return null;
  return {
    stop: async () => {
      rec.kill("SIGINT");
      await rec.exited;
      const script = Bun.spawnSync(["perf", "script", "-i", file, "-F", "comm,pid,tid,cpu,time,event,trace"], { stdout: "pipe", stderr: "ignore", maxBuffer: 1 << 30 });
      rmSync(file, { force: true });
      if (script.exitCode !== 0) return null;
      return parseSwitches(script.stdout.toString());
    },
  };
}

/** `perf script -F comm,pid,tid,cpu,time,event,trace` of sched_switch and sched_wakeup events. */
export function parseSwitches(text: string): Switches {
  const since = new Map<number, { at: number; tid: number }>(); // CPU → who came in, when
  const runs: Run[] = [];
  const ready: Ready[] = [];
  for (const line of text.split("\n")) {
    const w = WAKEUP.exec(line);
    if (w) {
      ready.push({ tid: Number(w[6]), cpu: Number(w[7]), at: Number(w[5]) * 1000, how: "woken", waker: { pid: Number(w[2]), comm: w[1]! } });
      continue;
    }
    const m = SWITCH.exec(line);
    if (!m) continue;
    const [pid, tid, cpu, at] = [Number(m[1]), Number(m[2]), Number(m[3]), Number(m[4]) * 1000];
    const from = since.get(cpu);
    if (from && from.tid === tid && tid !== 0) runs.push({ pid, tid, cpu, comm: m[5]!, start: from.at, end: at });
    since.set(cpu, { at, tid: Number(m[9]) });
    if (m[7]!.startsWith("R")) ready.push({ tid, cpu, at, how: "preempted" });
  }
  return { runs, ready };
}

/** A thread's kind: the node's threads by name without their number ("Bun Pool 1" → "Bun Pool"); every other process is one kind. */
const kindOf = (r: Run, node: number) => (r.pid === node ? (r.tid === node ? "main" : r.comm.replace(/ ?\d+$/, "")) : "other processes");

/** Every wait of the node's event loop (thread id = `node`) for its CPU, and what ran on that CPU until it ran. */
export function waits({ runs, ready }: Switches, node: number): Wait[] {
  const back = runs.filter((r) => r.tid === node).map((r) => r.start).sort((a, b) => a - b);
  // other threads' runs by CPU: on one CPU they follow each other, so one pointer per CPU walks them
  const onCpu = new Map<number, Run[]>();
  for (const r of runs) if (r.tid !== node) (onCpu.get(r.cpu) ?? onCpu.set(r.cpu, []).get(r.cpu)!).push(r);
  for (const list of onCpu.values()) list.sort((a, b) => a.start - b.start);
  const at = new Map<number, number>();
  const out: Wait[] = [];
  let j = 0;
  let until = -Infinity; // a wake-up while already waiting starts nothing new
  for (const mark of ready.filter((r) => r.tid === node).sort((a, b) => a.at - b.at)) {
    if (mark.at < until) continue;
    while (j < back.length && back[j]! < mark.at) j++;
    if (j >= back.length) break;
    const [start, end] = [mark.at, back[j]!];
    until = end;
    const by = new Map<string, number>();
    const list = onCpu.get(mark.cpu) ?? [];
    let k = at.get(mark.cpu) ?? 0;
    while (k < list.length && list[k]!.end <= start) k++;
    at.set(mark.cpu, k);
    for (let i = k; i < list.length && list[i]!.start < end; i++) {
      const r = list[i]!;
      const ms = Math.min(end, r.end) - Math.max(start, r.start);
      if (ms > 0) by.set(kindOf(r, node), (by.get(kindOf(r, node)) ?? 0) + ms);
    }
    out.push({ start, end, how: mark.how, by });
  }
  return out;
}

/**
 * A line for the bench: the event loop's waits for its CPU between `from` and `to` (how many, how
 * long, what ran meanwhile), the JIT compilers' CPU by second, and how often a compiler thread woke
 * the event loop (the event loop waiting on a compiler: a lowered compiler's priority would show here).
 */
export function describe(sw: Switches, node: number, from: number, to: number): string {
  const inWindow: Switches = { runs: sw.runs.filter((r) => r.start >= from && r.end <= to), ready: sw.ready.filter((r) => r.at >= from && r.at <= to) };
  const all = waits(inWindow, node);
  const total = new Map<string, number>();
  for (const w of all) for (const [k, ms] of w.by) total.set(k, (total.get(k) ?? 0) + ms);
  const lengths = all.map((w) => w.end - w.start);
  const count = (ms: number) => lengths.filter((l) => l >= ms).length;
  const sum = (ws: Wait[]) => Math.round(ws.reduce((a, w) => a + w.end - w.start, 0));
  const jitBySecond = Array.from({ length: Math.ceil((to - from) / 1000) }, () => 0);
  for (const r of inWindow.runs) if (r.pid === node && r.comm === "JITWorker") jitBySecond[Math.min(jitBySecond.length - 1, Math.floor((r.start - from) / 1000))]! += r.end - r.start;
  // how long the event loop had slept when a compiler thread woke it (a lock or a GC safepoint it waited on)
  const mainEnds = inWindow.runs.filter((r) => r.tid === node).map((r) => r.end).sort((a, b) => a - b);
  const slept = inWindow.ready
    .filter((r) => r.tid === node && r.how === "woken" && r.waker?.pid === node && r.waker.comm === "JITWorker")
    .map((r) => r.at - (mainEnds.filter((end) => end <= r.at).pop() ?? r.at));
  const by = [...total].sort((a, b) => b[1] - a[1]).map(([k, ms]) => `${k} ${Math.round(ms)}`).join(", ");
  return (
    `event loop ready but off its core ${all.length} times, ${sum(all)} ms in all (preempted ${sum(all.filter((w) => w.how === "preempted"))}, woken and waiting ${sum(all.filter((w) => w.how === "woken"))}; ` +
    `>= 1 ms: ${count(1)}, >= 5 ms: ${count(5)}, max ${Math.max(0, ...lengths).toFixed(1)} ms); its core meanwhile, ms: ${by || "none"}; ` +
    `JITWorker CPU ms by second: ${jitBySecond.map((ms) => Math.round(ms)).join(" ")}; event loop woken by a JITWorker: ${slept.length} times, after ${Math.round(slept.reduce((a, b) => a + b, 0))} ms asleep in all (max ${Math.max(0, ...slept).toFixed(1)})`
  );
}

/**
 * The slowest 1% of requests (due time and latency, CLOCK_MONOTONIC ms) against all: how many ms of
 * a request's time in the node, on average, the event loop was ready but off its core, and by what
 * kind of thread (a wait's ms shared out by what ran on its core meanwhile).
 */
export function slowestAgainstWaits(requests: Array<[number, number]>, sw: Switches, node: number): string {
  const all = waits(sw, node);
  const mean = (rs: Array<[number, number]>) => {
    const kinds = new Map<string, number>();
    let total = 0;
    for (const [due, latency] of rs) {
      // waits are in time order and do not overlap: skip to the first that ends after `due`
      let lo = 0;
      for (let hi = all.length; lo < hi; ) {
        const mid = (lo + hi) >> 1;
        if (all[mid]!.end <= due) lo = mid + 1;
        else hi = mid;
      }
      for (let i = lo; i < all.length && all[i]!.start < due + latency; i++) {
        const w = all[i]!;
        const ms = Math.min(w.end, due + latency) - Math.max(w.start, due);
        if (ms <= 0) continue;
        total += ms;
        const ran = [...w.by.values()].reduce((a, b) => a + b, 0) || 1;
        for (const [k, v] of w.by) kinds.set(k, (kinds.get(k) ?? 0) + (ms * v) / ran);
      }
    }
    const n = Math.max(1, rs.length);
    return `${(total / n).toFixed(2)} ms (${[...kinds].sort((a, b) => b[1] - a[1]).slice(0, 4).map(([k, v]) => `${k} ${(v / n).toFixed(2)}`).join(", ") || "-"})`;
  };
  const slowest = [...requests].sort((a, b) => b[1] - a[1]).slice(0, Math.max(1, Math.floor(requests.length / 100)));
  return `event loop off its core during a request, mean: slowest 1% ${mean(slowest)}; all ${mean(requests)}`;
}
