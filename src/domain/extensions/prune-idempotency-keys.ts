import { lt } from "drizzle-orm";
import { extensionIdempotency } from "../../db/schema/index.ts";
import type { Ctx } from "../context.ts";
import { IDEMPOTENCY_MS } from "./send-ext-intent.ts";

/** Idempotency-Key answers past their 24 h (POST /ext/v1/intents no longer reads them): the maintenance job drops them. */
export function pruneIdempotencyKeys(ctx: Pick<Ctx, "db" | "clock">): number {
  return ctx.db.delete(extensionIdempotency).where(lt(extensionIdempotency.createdAt, ctx.clock.now() - IDEMPOTENCY_MS)).returning({ k: extensionIdempotency.key }).all().length;
}
