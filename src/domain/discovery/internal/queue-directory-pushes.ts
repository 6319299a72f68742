import { eq } from "drizzle-orm";
import type { Tx } from "../../../db/client.ts";
import { directoryPushes } from "../../../db/schema/index.ts";
import type { Ids } from "../../context.ts";

export type PushAction = "publish" | "unpublish";

/**
 * Queues `action` for every directory, in the caller's transaction. The row per directory is
 * replaced: the latest action supersedes one still queued (publishing then unpublishing before
 * the first push sends only the unpublish), and a new id keeps an attempt already in flight for
 * the old action from settling this one.
 */
export function queueDirectoryPushes(tx: Tx, ids: Ids, directories: readonly string[], action: PushAction, now: number): void {
  for (const directory of directories) {
    const row = {
      id: `dpush_${ids.next()}`,
      action,
      status: "queued" as const,
      attempts: 0,
      nextAttemptAt: now,
      lastAttemptAt: null,
      lastStatus: null,
      lastError: null,
      deliveredAt: null,
      remoteStatus: null,
      createdAt: now,
    };
    const existing = tx.select({ directory: directoryPushes.directory }).from(directoryPushes).where(eq(directoryPushes.directory, directory)).get();
    if (existing) tx.update(directoryPushes).set(row).where(eq(directoryPushes.directory, directory)).run();
    else tx.insert(directoryPushes).values({ directory, ...row }).run();
  }
}
