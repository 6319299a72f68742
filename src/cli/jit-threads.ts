import { readdirSync, readFileSync } from "node:fs";
import { getPriority, setPriority } from "node:os";

/**
 * JavaScriptCore's compiler threads ("JITWorker") at 10 nice steps below the event loop (Linux).
 * On a node with one core they take it from the event loop in bursts: ~710 ms of CPU in the
 * inbound bench's 8 s window at 1,000 intents/s, 9% of the core while the node is ~89% busy, each
 * slice delaying every request waiting behind it (inbound-performance.md, "JIT compiler threads").
 * At nice +10 a contended core gives them ~10% of its time and the event loop the rest; an idle
 * core still gives them all of it, so code still tiers up, later when the node is saturated.
 * Relative, like the checkpoint Worker's (src/db/checkpoint-worker.ts), so a node started under
 * `nice` keeps its compilers below it. The cost: when the event loop waits for something a
 * compiler thread holds (likely a collection stopping the compilers at a safepoint), it now waits
 * until that thread gets the core, which is at once on an otherwise idle core and later behind other
 * busy processes (measured in inbound-performance.md).
 *
 * JSC creates these threads when it has something to compile and ends them after ~10 s with
 * nothing to do (WTF's AutomaticThread), and a new thread takes its creator's priority (the event
 * loop's): so a watch looks again every `everyMs`, not once. A look lists /proc/self/task and reads
 * the name of the threads it does not know yet.
 */
export const JIT_NICE = 10;
const JIT_THREAD = "JITWorker";

/** What the watch needs of the system (the real /proc and setpriority; fakes in tests). */
export interface ThreadSystem {
  /** This process's thread ids; empty where there is no /proc. */
  tids: () => number[];
  /** A thread's name; null once it has ended. */
  name: (tid: number) => string | null;
  /** The event loop's own nice value. */
  ownNice: () => number;
  getNice: (tid: number) => number;
  setNice: (tid: number, nice: number) => void;
}

/**
 * One look: every compiler thread not yet `JIT_NICE` below the event loop is put there; how many
 * were lowered. `settled` carries what earlier looks learnt, so that a look at a node whose threads
 * have not changed reads only the list of ids: a thread lowered, or seen twice under another name
 * (a new thread bears its creator's name until it names itself, within microseconds), is not read
 * again while it lives; ids no longer listed are forgotten.
 */
export function lowerJitThreads(system: ThreadSystem = procThreads, settled: Map<number, number> = new Map()): number {
  let lowered = 0;
  let target: number | null = null;
  const tids = system.tids();
  const live = new Set(tids);
  for (const tid of settled.keys()) if (!live.has(tid)) settled.delete(tid);
  for (const tid of tids) {
    const seen = settled.get(tid) ?? 0;
    if (seen >= 2) continue;
    const name = system.name(tid);
    if (name === null) continue;
    if (name !== JIT_THREAD) {
      settled.set(tid, seen + 1);
      continue;
    }
    target ??= Math.min(19, system.ownNice() + JIT_NICE);
    try {
      if (system.getNice(tid) < target) {
        system.setNice(tid, target);
        lowered++;
      }
      settled.set(tid, 2);
    } catch {
      // the thread ended between the listing and now, or lowering is not allowed: looked at again next time
    }
  }
  return lowered;
}

/**
 * Looks every `everyMs` until stopped; the timer never keeps the process alive. The first look is
 * a tick after the start, not during it (a first look reads every thread's name, ~0.1-0.2 ms, and
 * the binary's start compiles nothing anyway: start-up.ts).
 */
export function watchJitThreads(options: { everyMs?: number; system?: ThreadSystem; every?: (fn: () => void, ms: number) => () => void } = {}): () => void {
  const { everyMs = 1000, system = procThreads, every = unrefInterval } = options;
  const settled = new Map<number, number>();
  const look = () => {
    try {
      lowerJitThreads(system, settled);
    } catch {
      // /proc unreadable: the compilers keep the node's priority
    }
  };
  return every(look, everyMs);
}

function unrefInterval(fn: () => void, ms: number): () => void {
  const timer = setInterval(fn, ms);
  timer.unref?.();
  return () => clearInterval(timer);
}

const procThreads: ThreadSystem = {
  tids: () => {
    try {
      return readdirSync("/proc/self/task").map(Number);
    } catch {
      return [];
    }
  },
  name: (tid) => {
    try {
      return readFileSync(`/proc/self/task/${tid}/comm`, "utf8").trim();
    } catch {
      return null; // ended meanwhile
    }
  },
  ownNice: () => getPriority(),
  getNice: (tid) => getPriority(tid),
  setNice: (tid, nice) => setPriority(tid, nice),
};
