import { and, eq, inArray, min } from "drizzle-orm";
import { directoryPushes } from "../../db/schema/index.ts";
import type { With } from "../context.ts";

/** The earliest scheduled push, or null when nothing waits. */
export function nextPushAt(ctx: Pick<With<"directory">, "db" | "directory">): number | null {
  const directories = ctx.directory.directories;
  if (directories.length === 0) return null;
  const row = ctx.db
    .select({ at: min(directoryPushes.nextAttemptAt) })
    .from(directoryPushes)
    .where(and(eq(directoryPushes.status, "queued"), inArray(directoryPushes.directory, [...directories])))
    .get();
  return row?.at ?? null;
}
