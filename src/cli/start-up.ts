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
 * normal policy comes back with the node's 64th request: from then on it is in use and its hot
 * paths get compiled as usual. Workers start with the normal policy anyway.
 */
export const REQUESTS_BEFORE_JIT = 64;

/** The per-request hook of `kith serve`: the normal JIT policy once `requests` have come in. */
export function normalJitAfter(requests: number, runtime: StartUpRuntime = Bun as StartUpRuntime): () => void {
  let left = requests;
  return () => {
    if (left > 0 && --left === 0) normalJitNow(runtime);
  };
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
