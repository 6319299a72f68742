import { and, asc, eq, inArray, lte } from "drizzle-orm";
import { directoryPushes } from "../../db/schema/index.ts";
import type { With } from "../context.ts";
import { type PushRow } from "./push-to-directory.ts";

/** Queued pushes that are due, for directories still configured (one row per directory). */
export function listDuePushes(ctx: Pick<With<"directory">, "db" | "clock" | "directory">): PushRow[] {
  const directories = ctx.directory.directories;
  if (directories.length === 0) return [];
  return ctx.db
    .select()
    .from(directoryPushes)
    .where(and(eq(directoryPushes.status, "queued"), lte(directoryPushes.nextAttemptAt, ctx.clock.now()), inArray(directoryPushes.directory, [...directories])))
    .orderBy(asc(directoryPushes.nextAttemptAt))
    .all();
}
