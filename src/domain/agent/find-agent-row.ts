import { eq } from "drizzle-orm";
import type { Db, Tx } from "../../db/client.ts";
import { prepared } from "../../db/prepared.ts";
import { agents } from "../../db/schema/index.ts";

export type AgentRow = typeof agents.$inferSelect;

/**
 * The agent row (one agent per node). Read by most owner routes and the public card paths, so on a
 * connection it runs a statement prepared once (building the drizzle query costs ~80 µs a call); a
 * transaction object is not a cache key that lives, so inside one the query is built as before.
 */
export function findAgentRow(db: Db | Tx): AgentRow | null {
  if (!("$client" in db)) return db.select().from(agents).where(eq(agents.id, 1)).get() ?? null;
  return prepared(db, "agent-row", (d) => d.select().from(agents).where(eq(agents.id, 1)).prepare()).get() ?? null;
}
