import type { Ctx, Logger } from "../domain/context.ts";
import type { FederationDeps } from "../domain/federation/deps.ts";
import { deliverOne, listDueDeliveries, nextDeliveryAt } from "../domain/outbox/deliver.ts";
import { wakeableSleep } from "./wakeable-sleep.ts";

export interface OutboxWorker {
  /** Look for due work now (called after a commit that queued something). */
  wake(): void;
  /** Stop taking work; resolves when in-flight deliveries have settled. */
  stop(): Promise<void>;
}

const IDLE_POLL_MS = 30_000;

/**
 * Drains the outbox: up to `concurrency` peers at a time, one delivery per peer at a time (so a
 * peer receives messages in order). It sleeps until the earliest scheduled retry or a wake-up.
 * Everything it needs is in SQLite, so a crash loses nothing: on restart it picks up where it was.
 */
export function startOutboxWorker(options: { ctx: () => Ctx; deps: FederationDeps; log: Logger; concurrency?: number }): OutboxWorker {
  const concurrency = options.concurrency ?? 4;
  const inFlight = new Map<string, Promise<void>>();
  let stopped = false;
  let running: Promise<void> | null = null;

  const idle = wakeableSleep();

  const loop = async () => {
    while (!stopped) {
      const ctx = options.ctx();
      let due: ReturnType<typeof listDueDeliveries> = [];
      try {
        due = listDueDeliveries(ctx, concurrency * 4).filter((item) => !inFlight.has(item.peerPrincipal));
      } catch (e) {
        options.log.error("outbox scan failed", { cause: e });
      }
      for (const item of due) {
        if (inFlight.size >= concurrency || stopped) break;
        const run = deliverOne(options.ctx(), item, options.deps)
          .then(() => undefined)
          .catch((e) => options.log.error("delivery crashed", { outbox: item.id, cause: e }))
          .finally(() => {
            inFlight.delete(item.peerPrincipal);
            idle.wake();
          });
        inFlight.set(item.peerPrincipal, run);
      }
      if (stopped) break;
      const next = safeNext(ctx);
      const wait = inFlight.size > 0 && due.length === 0 ? IDLE_POLL_MS : next === null ? IDLE_POLL_MS : next - ctx.clock.now();
      await idle.sleep(due.length > 0 && inFlight.size < concurrency ? 0 : Math.min(wait, IDLE_POLL_MS));
    }
  };

  const safeNext = (ctx: Ctx): number | null => {
    try {
      return nextDeliveryAt(ctx);
    } catch {
      return null;
    }
  };

  running = loop();
  return {
    wake() {
      idle.wake();
    },
    async stop() {
      stopped = true;
      idle.wake();
      await running;
      await Promise.all(inFlight.values());
    },
  };
}
