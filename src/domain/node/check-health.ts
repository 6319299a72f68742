import { sql } from "drizzle-orm";
import type { Ctx } from "../context.ts";
import { findAgentRow } from "../agent/find-agent-row.ts";

export interface Health {
  status: "ok" | "degraded";
  database: "ok" | "unavailable";
  agent: boolean;
}

/** Liveness plus a real round trip to SQLite: a node that cannot read its database is not healthy. */
export function checkHealth(ctx: Ctx): Health {
  try {
    ctx.db.get(sql`select 1`);
    return { status: "ok", database: "ok", agent: findAgentRow(ctx.db) !== null };
  } catch (e) {
    ctx.log.error("health check failed", { cause: e });
    return { status: "degraded", database: "unavailable", agent: false };
  }
}
