import { sql } from "drizzle-orm";
import { rateLimits } from "../../db/schema/index.ts";
import { decision, type RateDecision, type RateRule } from "../../security/rate-limit.ts";
import type { Ctx } from "../context.ts";

/**
 * Durable fixed-window limiter: one upsert per call, so a restart cannot reset the window. Use it
 * for limits an attacker would otherwise bypass by waiting for a restart (email code sends).
 */
export function consumeRateLimit(ctx: Pick<Ctx, "db" | "clock">, bucket: string, key: string, rule: RateRule): RateDecision {
  const now = ctx.clock.now();
  const start = Math.floor(now / rule.windowMs) * rule.windowMs;
  const row = ctx.db
    .insert(rateLimits)
    .values({ bucket, key, windowStart: start, count: 1 })
    .onConflictDoUpdate({
      target: [rateLimits.bucket, rateLimits.key],
      set: {
        count: sql`CASE WHEN ${rateLimits.windowStart} = excluded.window_start THEN ${rateLimits.count} + 1 ELSE 1 END`,
        windowStart: sql`excluded.window_start`,
      },
    })
    .returning({ count: rateLimits.count })
    .get()!;
  return decision(row.count, start, rule, now);
}

