import { inArray } from "drizzle-orm";
import * as v from "valibot";
import { marketplaceExtensions } from "../../db/schema/index.ts";
import type { Ctx } from "../context.ts";
import { queryTerms, textClause } from "../internal/fts-query.ts";
import { approvedManifest } from "../internal/marketplace-manifest.ts";
import { limitParam, searchTextParam } from "../internal/search-params.ts";
import { type ExtensionSummary, summaryOf } from "./internal/views.ts";

export const MAX_MARKETPLACE_LIMIT = 50;
export const DEFAULT_MARKETPLACE_LIMIT = 20;

/** `GET /marketplace/extensions` query (SPEC Limits: `q` at least 2 characters, `limit` default 20, at most 50). */
export const MarketplaceQuery = v.object(
  { q: searchTextParam, limit: limitParam(MAX_MARKETPLACE_LIMIT, DEFAULT_MARKETPLACE_LIMIT) },
  "q is required (at least 2 characters)",
);
export type MarketplaceQuery = v.InferOutput<typeof MarketplaceQuery>;

/**
 * Listed extensions whose name, summary, publisher or categories match every word of `q` (as a
 * word prefix; case and accents folded), best match first (bm25, name weighted most). Unlisted,
 * delisted and suspended extensions are not in the index.
 */
export function searchMarketplace(ctx: Ctx, query: MarketplaceQuery): { results: ExtensionSummary[] } {
  const match = textClause(queryTerms(query.q));
  const limit = query.limit ?? DEFAULT_MARKETPLACE_LIMIT;
  const ranked = ctx.db.$client
    .query<{ rowid: number }, [string, number]>("SELECT rowid FROM marketplace_fts WHERE marketplace_fts MATCH ? ORDER BY rank LIMIT ?")
    .all(match, limit)
    .map((r) => r.rowid);
  const bySeq = new Map(ranked.length === 0 ? [] : ctx.db.select().from(marketplaceExtensions).where(inArray(marketplaceExtensions.seq, ranked)).all().map((r) => [r.seq, r]));
  const now = ctx.clock.now();
  const results: ExtensionSummary[] = [];
  for (const seq of ranked) {
    const row = bySeq.get(seq);
    if (!row) continue;
    const approved = approvedManifest(ctx.db, row.extensionId);
    if (approved) results.push(summaryOf(ctx.db, row, approved.manifest as Record<string, unknown>, now));
  }
  return { results };
}
