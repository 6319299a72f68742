import type { Logger, With } from "../domain/context.ts";
import { pushToDirectory } from "../domain/discovery/push-to-directory.ts";
import { nextPushAt } from "../domain/discovery/next-push-at.ts";
import { listDuePushes } from "../domain/discovery/list-due-pushes.ts";
import { reconcileDirectoryPushes } from "../domain/discovery/reconcile-directory-pushes.ts";
import { startKeyedDrain, type KeyedDrain } from "./keyed-drain.ts";

export type DirectoryPusher = KeyedDrain;

/**
 * Drains `directory_pushes`: one push per directory at a time (a later unpublish waits for the
 * publish in flight), directories in parallel; sleeps until the earliest retry or a wake-up. At
 * start, directories configured since the last publish get the current state queued.
 */
export function startDirectoryPusher(options: { ctx: () => With<"node" | "vault" | "peers" | "directory">; log: Logger }): DirectoryPusher {
  const { log } = options;
  try {
    const queued = reconcileDirectoryPushes(options.ctx());
    if (queued > 0) log.info("queued the publication for newly configured directories", { queued });
  } catch (e) {
    log.error("directory push reconcile failed", { cause: e });
  }
  return startKeyedDrain({
    ctx: options.ctx,
    log,
    scan: (ctx) => listDuePushes(ctx),
    key: (item) => item.directory,
    run: (ctx, item) => pushToDirectory(ctx, item),
    next: (ctx) => nextPushAt(ctx),
    messages: { scanFailed: "directory push scan failed", runCrashed: "directory push crashed" },
    describe: (item) => ({ directory: item.directory }),
  });
}
