import type { Ctx } from "../context.ts";

export interface Health {
  status: "ok" | "degraded";
  database: "ok" | "unavailable";
  agent: boolean;
}

/**
 * Liveness plus a real round trip to SQLite: a node that cannot read its database is not healthy.
 * The two reads go through bun:sqlite's `query` (compiled once per connection, refused once the
 * connection is closed): building them through drizzle on every request was ~40 µs, most of a
 * GET /health (docs/decisions/inbound-performance.md). Same SQL as find-agent-row.ts (id 1).
 */
export function checkHealth(ctx: Ctx): Health {
  try {
    const sqlite = ctx.db.$client;
    sqlite.query("select 1").get();
    return { status: "ok", database: "ok", agent: sqlite.query("select 1 from agents where id = 1").get() !== null };
  } catch (e) {
    ctx.log.error("health check failed", { cause: e });
    return { status: "degraded", database: "unavailable", agent: false };
  }
}
