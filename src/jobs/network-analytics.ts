import type { Collaborators, Ctx, Logger } from "../domain/context.ts";
import { refreshNetwork } from "../domain/network/refresh-network.ts";

/**
 * Keeps the network snapshot fresh: every `everyMs` it asks refreshNetwork, which checks a cheap
 * change key and recomputes (in the Worker) only when the debounce allows. One step at a time;
 * stop() waits for a step in flight. Nothing happens on a node that never asked for analytics.
 */
export function startNetworkAnalytics(options: { ctx: () => Ctx & Collaborators; log: Logger; everyMs?: number }): { stop(): Promise<void> } {
  let running: Promise<unknown> | null = null;
  const tick = () => {
    if (running) return;
    running = refreshNetwork(options.ctx())
      .then((outcome) => {
        if (outcome === "recomputed") options.log.debug("network analytics recomputed");
      })
      .catch((e) => options.log.error("network analytics failed", { cause: e }))
      .finally(() => (running = null));
  };
  const handle = setInterval(tick, options.everyMs ?? 5_000);
  handle.unref?.();
  return {
    async stop() {
      clearInterval(handle);
      await running;
    },
  };
}
