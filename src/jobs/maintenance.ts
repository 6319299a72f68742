import type { Ctx, Logger } from "../domain/context.ts";
import { pruneNonces, pruneRateLimits, pruneStrangerPeerCards } from "../domain/federation/prune.ts";

/** Periodic housekeeping: expired replay nonces, strangers' peer cards, dead rate-limit rows. */
export function startMaintenance(options: { ctx: () => Ctx; log: Logger; everyMs?: number }): { stop(): void } {
  const tick = () => {
    try {
      const ctx = options.ctx();
      const removed = { nonces: pruneNonces(ctx), peerCards: pruneStrangerPeerCards(ctx), rateLimits: pruneRateLimits(ctx) };
      if (removed.nonces + removed.peerCards + removed.rateLimits > 0) options.log.debug("pruned stale state", removed);
    } catch (e) {
      options.log.error("maintenance failed", { cause: e });
    }
  };
  const handle = setInterval(tick, options.everyMs ?? 60_000);
  handle.unref?.();
  return { stop: () => clearInterval(handle) };
}
