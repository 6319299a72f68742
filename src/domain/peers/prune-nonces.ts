import { pruneNonceRows } from "../../db/nonce-index.ts";
import type { Ctx } from "../context.ts";

/** Nonces are kept well past the freshness window (5 min old, 30 s ahead) so a replay always meets its twin. */
export const NONCE_RETENTION_MS = 15 * 60 * 1000;

export function pruneNonces(ctx: Pick<Ctx, "db" | "clock">): number {
  return pruneNonceRows(ctx.db, ctx.clock.now() - NONCE_RETENTION_MS);
}
