import type { Ctx, Logger } from "../domain/context.ts";
import { pruneNonces } from "../domain/federation/prune.ts";
import { pruneSignInState } from "../domain/owner/prune-sign-in-state.ts";

/** Periodic housekeeping: expired replay nonces; sign-in state (OAuth states, codes, limiter rows) past use. */
export function startMaintenance(options: { ctx: () => Ctx; log: Logger; everyMs?: number }): { stop(): void } {
  const tick = () => {
    try {
      const removed = pruneNonces(options.ctx());
      if (removed > 0) options.log.debug("pruned replay nonces", { removed });
      const signIn = pruneSignInState(options.ctx());
      if (signIn.states + signIn.codes + signIn.limits > 0) options.log.debug("pruned sign-in state", signIn);
    } catch (e) {
      options.log.error("maintenance failed", { cause: e });
    }
  };
  const handle = setInterval(tick, options.everyMs ?? 60_000);
  handle.unref?.();
  return { stop: () => clearInterval(handle) };
}
