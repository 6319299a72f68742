import { and, asc, eq, sql } from "drizzle-orm";
import type { Db } from "../../db/client.ts";
import { prepared } from "../../db/prepared.ts";
import { directoryListings } from "../../db/schema/index.ts";
import type { With } from "../context.ts";
import { notFound } from "../internal/errors.ts";
import { findAgentRow } from "../agent/find-agent-row.ts";
import { cardVisibilityOf } from "../agent/card-visibility-of.ts";
import { agentIdOf } from "../agent/agent-id-of.ts";
import { RESERVED_PATHS } from "./internal/handles.ts";
import { normalizeHandle } from "../agent/normalize-handle.ts";

export interface HandleResolution {
  found: boolean;
  agentId: string | null;
  handle: string;
}

/**
 * `GET /{handle}`: this node's agent, else an agent listed in this node's directory (handles are
 * self-asserted and may collide there: the oldest current listing wins, and this node's own agent
 * always wins, unless its card is private). An unknown handle is an answer (found: false); a
 * reserved path is not a handle.
 */
export function resolveHandle(ctx: With<"node">, raw: string): HandleResolution {
  const handle = normalizeHandle(raw);
  if (RESERVED_PATHS.has(handle)) throw notFound(`/${raw}`);
  const agent = findAgentRow(ctx.db);
  // A private agent is answered like an unknown handle: the public paths do not reveal it.
  if (agent && agent.handle === handle && cardVisibilityOf(ctx.db) === "public") return { found: true, agentId: agentIdOf(agent, ctx.node.wordmark), handle: agent.handle };
  const listed = listedHandle(ctx.db).get({ handle }) ?? null;
  if (listed) return { found: true, agentId: listed.agentId, handle: listed.handle };
  return { found: false, agentId: null, handle };
}

/** The oldest current remote listing of a handle: a public route, so prepared once per connection. */
function listedHandle(db: Db) {
  return prepared(db, "listed-handle", (d) =>
    d
      .select({ agentId: directoryListings.agentId, handle: directoryListings.handle })
      .from(directoryListings)
      .where(and(eq(directoryListings.handleKey, sql.placeholder("handle")), eq(directoryListings.status, "listed"), eq(directoryListings.source, "remote")))
      .orderBy(asc(directoryListings.listedAt), asc(directoryListings.id))
      .limit(1)
      .prepare(),
  );
}
