import type { With } from "../context.ts";
import { served } from "./internal/answers.ts";
import { dayOf, decayingBody } from "./internal/health-bodies.ts";
import { ownerAnalytics } from "./internal/owner-read.ts";

/** The owner's slipping relationships, the ones that matter most first (at most `limit`), with the ETag. */
export async function listDecayingContacts(ctx: With<"network">, q: { limit: number }) {
  const a = await ownerAnalytics(ctx, "sees decaying relationships");
  const now = ctx.clock.now();
  return served(ctx.db, a.etag, `decaying|${q.limit}|${dayOf(now)}`, () => decayingBody(a, now, q.limit, { names: true }));
}
