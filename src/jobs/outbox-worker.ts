import type { Logger, Metrics, With } from "../domain/context.ts";
import { deliverOne } from "../domain/outbox/deliver-one.ts";
import { nextDeliveryAt } from "../domain/outbox/next-delivery-at.ts";
import { listDueDeliveries } from "../domain/outbox/list-due-deliveries.ts";
import { startKeyedDrain, type KeyedDrain } from "./keyed-drain.ts";

export type OutboxWorker = KeyedDrain;

/**
 * Drains the outbox: up to `concurrency` peers at a time, one delivery per peer at a time (so a
 * peer receives messages in order), sleeping until the earliest scheduled retry or a wake-up.
 */
export function startOutboxWorker(options: { ctx: () => With<"node" | "vault" | "peers">; log: Logger; concurrency?: number; metrics?: Metrics }): OutboxWorker {
  const concurrency = options.concurrency ?? 4;
  return startKeyedDrain({
    ctx: options.ctx,
    log: options.log,
    concurrency,
    scan: (ctx) => listDueDeliveries(ctx, concurrency * 4),
    key: (item) => item.peerPrincipal,
    run: async (ctx, item) => {
      const outcome = await deliverOne(ctx, item);
      options.metrics?.delivery(outcome.kind);
      return outcome;
    },
    next: nextDeliveryAt,
    messages: { scanFailed: "outbox scan failed", runCrashed: "delivery crashed" },
    describe: (item) => ({ outbox: item.id }),
  });
}
