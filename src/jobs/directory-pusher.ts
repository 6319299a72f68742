import type { Ctx, Logger } from "../domain/context.ts";
import type { DiscoveryDeps } from "../domain/discovery/deps.ts";
import { listDuePushes, nextPushAt, pushToDirectory } from "../domain/discovery/push-to-directory.ts";
import { reconcileDirectoryPushes } from "../domain/discovery/reconcile-directory-pushes.ts";
import { wakeableSleep } from "./wakeable-sleep.ts";

export interface DirectoryPusher {
  /** Look for due pushes now (called after a commit that queued some). */
  wake(): void;
  /** Stop taking work; resolves when pushes in flight have settled. */
  stop(): Promise<void>;
}

const IDLE_POLL_MS = 30_000;

/**
 * Drains `directory_pushes`: one push per directory at a time (a later unpublish waits for the
 * publish in flight), directories in parallel; sleeps until the earliest retry or a wake-up. At
 * start, directories configured since the last publish get the current state queued.
 */
export function startDirectoryPusher(options: { ctx: () => Ctx; deps: DiscoveryDeps; log: Logger }): DirectoryPusher {
  const { deps, log } = options;
  const inFlight = new Map<string, Promise<void>>();
  let stopped = false;

  const idle = wakeableSleep();

  const loop = async () => {
    try {
      const queued = reconcileDirectoryPushes(options.ctx(), deps);
      if (queued > 0) log.info("queued the publication for newly configured directories", { queued });
    } catch (e) {
      log.error("directory push reconcile failed", { cause: e });
    }
    while (!stopped) {
      const ctx = options.ctx();
      let due: ReturnType<typeof listDuePushes> = [];
      try {
        due = listDuePushes(ctx, deps.directories).filter((p) => !inFlight.has(p.directory));
      } catch (e) {
        log.error("directory push scan failed", { cause: e });
      }
      for (const item of due) {
        const run = pushToDirectory(options.ctx(), item, deps)
          .then(() => undefined)
          .catch((e) => log.error("directory push crashed", { directory: item.directory, cause: e }))
          .finally(() => {
            inFlight.delete(item.directory);
            idle.wake();
          });
        inFlight.set(item.directory, run);
      }
      if (stopped) break;
      let next: number | null = null;
      try {
        next = nextPushAt(ctx, deps.directories);
      } catch {
        next = null;
      }
      await idle.sleep(next === null ? IDLE_POLL_MS : Math.min(IDLE_POLL_MS, next - ctx.clock.now()));
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
