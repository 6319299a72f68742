import type { With } from "../context.ts";
import { decayingBody } from "./internal/health-bodies.ts";
import { ownerAnalytics } from "./internal/owner-read.ts";

/** The owner's slipping relationships, the ones that matter most first (at most `limit`), with the ETag. */
export async function listDecayingContacts(ctx: With<"network">, q: { limit: number }) {
  const a = await ownerAnalytics(ctx, "sees decaying relationships");
  return { etag: a.etag, body: decayingBody(a, ctx.clock.now(), q.limit, { names: true }) };
}
