import type { Ctx, Logger } from "../domain/context.ts";
import { wakeableSleep } from "./wakeable-sleep.ts";

export interface KeyedDrain {
  /** Look for due work now (called after a commit that queued some). */
  wake(): void;
  /** Stop taking work; resolves when the work in flight has settled. */
  stop(): Promise<void>;
}

const IDLE_POLL_MS = 30_000;

/**
 * The loop behind the durable queues (outbox, directory pushes): scan what is due, start each item
 * whose key has nothing in flight (one item per key at a time keeps a peer's messages in order),
 * up to `concurrency` keys at once, then sleep until the earliest scheduled retry, a finished item
 * or a wake-up. Everything lives in SQLite, so a crash loses nothing: a restart picks up the rest.
 */
export function startKeyedDrain<T, C extends Ctx = Ctx>(o: {
  ctx: () => C;
  log: Logger;
  /** Due items, oldest first. */
  scan: (ctx: C) => T[];
  key: (item: T) => string;
  run: (ctx: C, item: T) => Promise<unknown>;
  /** When the next scheduled item falls due (epoch ms), or null when none is scheduled. */
  next: (ctx: C) => number | null;
  concurrency?: number;
  /** Log messages and the fields that name an item in them. */
  messages: { scanFailed: string; runCrashed: string };
  describe: (item: T) => Record<string, unknown>;
}): KeyedDrain {
  const concurrency = o.concurrency ?? Infinity;
  const inFlight = new Map<string, Promise<void>>();
  const idle = wakeableSleep();
  let stopped = false;

  const nextAt = (ctx: C): number | null => {
    try {
      return o.next(ctx);
    } catch {
      return null;
    }
  };

  const loop = async () => {
    while (!stopped) {
      const ctx = o.ctx();
      let due: T[] = [];
      try {
        due = o.scan(ctx).filter((item) => !inFlight.has(o.key(item)));
      } catch (e) {
        o.log.error(o.messages.scanFailed, { cause: e });
      }
      for (const item of due) {
        if (inFlight.size >= concurrency || stopped) break;
        const key = o.key(item);
        const run = o
          .run(o.ctx(), item)
          .then(() => undefined)
          .catch((e) => o.log.error(o.messages.runCrashed, { ...o.describe(item), cause: e }))
          .finally(() => {
            inFlight.delete(key);
            idle.wake();
          });
        inFlight.set(key, run);
      }
      if (stopped) break;
      const next = nextAt(ctx);
      const wait = inFlight.size > 0 && due.length === 0 ? IDLE_POLL_MS : next === null ? IDLE_POLL_MS : next - ctx.clock.now();
      await idle.sleep(due.length > 0 && inFlight.size < concurrency ? 0 : Math.min(wait, IDLE_POLL_MS));
    }
  };

  const running = loop();
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
