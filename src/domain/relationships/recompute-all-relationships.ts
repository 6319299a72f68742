import type { Ctx } from "../context.ts";
import { recomputeRelationshipsPage } from "./recompute-relationships-page.ts";

/** Every relationship at once (tests, and callers that do not need to yield). */
export function recomputeAllRelationships(ctx: Ctx): number {
  let changed = 0;
  let after: string | null = null;
  do {
    const page = recomputeRelationshipsPage(ctx, after);
    changed += page.changed;
    after = page.next;
  } while (after !== null);
  return changed;
}
