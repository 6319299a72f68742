import { preloadNonceIndex } from "../../db/nonce-index.ts";
import type { Ctx } from "../context.ts";

/**
 * Reads up to `limit` more replay nonces into the connection's in-memory index before the first
 * signed request needs it (db/nonce-index.ts); true once nothing is left to read. The maintenance
 * job calls it in steps after start, with the event loop given back in between: loading the index
 * whole took the first signed request after a restart 55-85 ms at 100k rows.
 */
export function preloadNonces(ctx: Pick<Ctx, "db">, limit: number): boolean {
  return preloadNonceIndex(ctx.db, limit);
}
