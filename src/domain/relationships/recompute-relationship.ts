import { eq } from "drizzle-orm";
import type { Tx } from "../../db/client.ts";
import { connections } from "../../db/schema/index.ts";
import { applyScores } from "./internal/apply-scores.ts";

/** One relationship (after the owner changes its layer override). */
export function recomputeRelationship(tx: Tx, now: number, connectionId: string): void {
  const row = tx.select().from(connections).where(eq(connections.id, connectionId)).get();
  if (row) applyScores(tx, now, [row]);
}
