import { eq } from "drizzle-orm";
import type { Db, Tx } from "../../db/client.ts";
import { agents } from "../../db/schema/index.ts";

export type AgentRow = typeof agents.$inferSelect;

export function findAgentRow(db: Db | Tx): AgentRow | null {
  return db.select().from(agents).where(eq(agents.id, 1)).get() ?? null;
}

