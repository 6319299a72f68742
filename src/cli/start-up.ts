/** What `kith serve` needs of the runtime once it is listening (Bun's; a fake in tests). */
export interface StartUpRuntime {
  shrink?: () => void;
  unsafe?: { setJITPolicy?: (scale: number) => void };
}

/**
 * Start-up is over (`kith serve` is listening). Two things the start needed are undone:
 * - The binary starts with JavaScriptCore's tier-up thresholds scaled up (scripts/build.ts,
 *   `--compile-jit-policy`): code that runs only while starting stays in the interpreter instead
 *   of being JIT-compiled on other threads, then dropped. From here on the request path is what
 *   runs, and it gets the normal policy. Workers start with the normal policy anyway.
 * - `shrink` has JSC collect what only the start used (module bodies, the construction of routes
 *   and schemas, their compiled code) and hand free pages back: ~3.5 MiB less idle RSS.
 * Both are in inbound-performance.md, "Start-up". Either may be missing from a Bun build
 * (`Bun.shrink` is marked deprecated); then it is skipped.
 */
export function endStartUp(runtime: StartUpRuntime = Bun as StartUpRuntime): void {
  if (typeof runtime.unsafe?.setJITPolicy === "function") runtime.unsafe.setJITPolicy(1);
  if (typeof runtime.shrink === "function") runtime.shrink();
}
