import type { Ctx } from "../context.ts";

export interface Health {
  status: "ok" | "degraded";
  database: "ok" | "unavailable";
  agent: boolean;
}

/**
 * Liveness plus a real round trip to SQLite: a node that cannot read its database is not healthy.
 * The read goes through bun:sqlite's `query` (compiled once per connection, refused once the
 * connection is closed): building it (and a `select 1`) through drizzle on every request was ~40 µs, most of a
 * GET /health (docs/decisions/inbound-performance.md). Same SQL as find-agent-row.ts (id 1).
 */
export function checkHealth(ctx: Ctx): Health {
  try {
    // The agent row's read is the round trip (a `select 1` before it added a second for nothing).
    const agent = ctx.db.$client.query("select 1 from agents where id = 1").get() !== null;
    return { status: "ok", database: "ok", agent };
  } catch (e) {
    ctx.log.error("health check failed", { cause: e });
    return { status: "degraded", database: "unavailable", agent: false };
  }
}
