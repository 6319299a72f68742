import type { Ctx, Logger } from "../domain/context.ts";
import { pruneNonces } from "../domain/federation/prune.ts";

/** Periodic housekeeping: expired replay nonces. */
export function startMaintenance(options: { ctx: () => Ctx; log: Logger; everyMs?: number }): { stop(): void } {
  const tick = () => {
    try {
      const removed = pruneNonces(options.ctx());
      if (removed > 0) options.log.debug("pruned replay nonces", { removed });
    } catch (e) {
      options.log.error("maintenance failed", { cause: e });
    }
  };
  const handle = setInterval(tick, options.everyMs ?? 60_000);
  handle.unref?.();
  return { stop: () => clearInterval(handle) };
}
