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
 * `nice` keeps its compilers below it.
 *
 * JSC creates these threads when it has something to compile and ends them after ~10 s with
 * nothing to do (WTF's AutomaticThread), and a new thread takes its creator's priority (the event
 * loop's): so a watch looks again every `everyMs`, not once. A look reads /proc/self/task (one
 * small file a thread, ~5 µs each); nothing is kept between looks, so a reused thread id is judged
 * by its name and priority at that moment.
 */
export const JIT_NICE = 10;
const JIT_THREAD = "JITWorker";

/** What the watch needs of the system (the real /proc and setpriority; fakes in tests). */
export interface ThreadSystem {
  /** Thread ids and names of this process; empty where there is no /proc. */
  threads: () => Array<{ tid: number; name: string }>;
  /** The event loop's own nice value. */
  ownNice: () => number;
  getNice: (tid: number) => number;
  setNice: (tid: number, nice: number) => void;
}

/** One look: every compiler thread not yet `JIT_NICE` below the event loop is put there. How many were lowered. */
export function lowerJitThreads(system: ThreadSystem = procThreads): number {
  let lowered = 0;
  let target: number | null = null;
  for (const { tid, name } of system.threads()) {
    if (name !== JIT_THREAD) continue;
    target ??= Math.min(19, system.ownNice() + JIT_NICE);
    try {
      if (system.getNice(tid) >= target) continue;
      system.setNice(tid, target);
      lowered++;
    } catch {
      // the thread ended between the listing and now, or lowering is not allowed: leave it
    }
  }
  return lowered;
}

/** Looks now and every `everyMs` until stopped; the timer never keeps the process alive. */
export function watchJitThreads(options: { everyMs?: number; system?: ThreadSystem; every?: (fn: () => void, ms: number) => () => void } = {}): () => void {
  const { everyMs = 1000, system = procThreads, every = unrefInterval } = options;
  const look = () => {
    try {
      lowerJitThreads(system);
    } catch {
      // /proc unreadable: the compilers keep the node's priority
    }
  };
  look();
  return every(look, everyMs);
}

function unrefInterval(fn: () => void, ms: number): () => void {
  const timer = setInterval(fn, ms);
  timer.unref?.();
  return () => clearInterval(timer);
}

const procThreads: ThreadSystem = {
  threads: () => {
    let tids: string[];
    try {
      tids = readdirSync("/proc/self/task");
    } catch {
      return [];
    }
    const out: Array<{ tid: number; name: string }> = [];
    for (const tid of tids) {
      try {
        out.push({ tid: Number(tid), name: readFileSync(`/proc/self/task/${tid}/comm`, "utf8").trim() });
      } catch {
        // ended meanwhile
      }
    }
    return out;
  },
  ownNice: () => getPriority(),
  getNice: (tid) => getPriority(tid),
  setNice: (tid, nice) => setPriority(tid, nice),
};
