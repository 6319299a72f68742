import { sql } from "drizzle-orm";
import { check, index, integer, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { retryColumns } from "./retry-columns.ts";

/**
 * This node's pushes of its own publication to the directories of KITH_DIRECTORIES: one row per
 * directory, replaced by each new publish/unpublish (the latest action supersedes a queued one;
 * `id` changes so an attempt in flight for the old action cannot settle the new one). Drained by
 * the directory pusher with the intent outbox's backoff.
 */
export const directoryPushes = sqliteTable(
  "directory_pushes",
  {
    directory: text("directory").primaryKey(),
    id: text("id").notNull(),
    action: text("action", { enum: ["publish", "unpublish"] }).notNull(),
    status: text("status", { enum: ["queued", "delivered", "failed"] }).notNull(),
    ...retryColumns(),
    /** The directory's answer to the last delivered push (`listed`, `delisted`). */
    remoteStatus: text("remote_status"),
    createdAt: integer("created_at").notNull(),
  },
  (t) => [
    check("directory_pushes_action", sql`${t.action} in ('publish', 'unpublish')`),
    check("directory_pushes_status", sql`${t.status} in ('queued', 'delivered', 'failed')`),
    index("directory_pushes_due_idx").on(t.status, t.nextAttemptAt),
  ],
);
