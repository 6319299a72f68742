/** What start-up needs of the runtime (Bun's; a fake in tests). */
export interface StartUpRuntime {
  shrink?: () => void;
  unsafe?: { setJITPolicy?: (scale: number) => void };
}

/**
 * The binary starts with JavaScriptCore's tier-up thresholds scaled far up (scripts/build.ts,
 * `--compile-jit-policy`): the code of a start runs once, so compiling it on the JIT threads is
 * CPU spent and JIT code (and the JIT compilers' own pages) kept resident for nothing. An idle
 * node that JIT-compiled nothing has ~4 MiB less RSS (inbound-performance.md, hx-snap). The
 * normal policy comes back as soon as the node is in use, whatever the work: its 64th request,
 * or a second in which it spent more than 5% of a core (a mailbox home drains its intents without
 * HTTP requests; the outbox, receipts and the assistant are jobs). Workers start with the normal
 * policy anyway.
 */
export const REQUESTS_BEFORE_JIT = 64;
/** A second of CPU above this share of one core means the node is working, not idling. */
export const BUSY_SHARE = 0.05;

/** How `kith serve` watches for use: a tick per request; `stop` when it closes. */
export interface JitWatch {
  countRequest: () => void;
  stop: () => void;
}

/**
 * The normal JIT policy once `requests` have come in, or once a `checkEveryMs` window shows more
 * than `busyShare` of a core of CPU (`cpuMs`: the process's CPU time so far; the first window is
 * not counted), whichever is first,
 * and only once. The watch's timer is unreferenced (it never keeps the process alive) and ends
 * when the policy changes.
 */
export function normalJitOnUse(
  options: { requests?: number; busyShare?: number; checkEveryMs?: number; cpuMs?: () => number; every?: (fn: () => void, ms: number) => () => void } = {},
  runtime: StartUpRuntime = Bun as StartUpRuntime,
): JitWatch {
  const { requests = REQUESTS_BEFORE_JIT, busyShare = BUSY_SHARE, checkEveryMs = 1000, cpuMs = processCpuMs, every = unrefInterval } = options;
  let left = requests;
  let done = false;
  let cancel: () => void = () => {};
  const switchNow = () => {
    if (done) return;
    done = true;
    cancel();
    normalJitNow(runtime);
  };
  // The first window only takes a baseline: it holds the end of the start itself (jobs loading, the
  // heap shrink), which is not use.
  let last: number | null = null;
  cancel = every(() => {
    const now = cpuMs();
    if (last !== null && now - last > busyShare * checkEveryMs) switchNow();
    last = now;
  }, checkEveryMs);
  return {
    countRequest: () => {
      if (!done && --left <= 0) switchNow();
    },
    stop: () => cancel(),
  };
}

function processCpuMs(): number {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
}

function unrefInterval(fn: () => void, ms: number): () => void {
  const timer = setInterval(fn, ms);
  timer.unref?.();
  return () => clearInterval(timer);
}

/** The normal JIT policy from now on (every verb but `kith serve`, which waits for use). */
export function normalJitNow(runtime: StartUpRuntime = Bun as StartUpRuntime): void {
  if (typeof runtime.unsafe?.setJITPolicy === "function") runtime.unsafe.setJITPolicy(1);
}

/**
 * Start-up is over (`kith serve` is listening): `shrink` has JSC collect what only the start used
 * (module bodies, the construction of routes and schemas, their compiled code) and hand free
 * pages back: ~3.5 MiB less idle RSS. `Bun.shrink` is marked deprecated; without it, skipped.
 */
export function endStartUp(runtime: StartUpRuntime = Bun as StartUpRuntime): void {
  if (typeof runtime.shrink === "function") runtime.shrink();
}
