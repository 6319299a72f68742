import { inArray } from "drizzle-orm";
import * as v from "valibot";
import { marketplaceExtensions } from "../../db/schema/index.ts";
import type { Ctx } from "../context.ts";
import { MAX_QUERY_TERMS, queryTerms, textClause } from "../internal/fts-query.ts";
import { approvedManifest } from "../internal/marketplace-manifest.ts";
import { queryText } from "../internal/query-text.ts";
import { wireDoc } from "../internal/wire-doc.ts";
import { type ExtensionSummary, summaryOf } from "./internal/views.ts";

export const MAX_MARKETPLACE_LIMIT = 50;
export const DEFAULT_MARKETPLACE_LIMIT = 20;

/** `GET /marketplace/extensions` query (SPEC Limits: `q` at least 2 characters, `limit` default 20, at most 50). */
export const MarketplaceQuery = v.object(
  {
    q: v.pipe(
      queryText,
      v.minLength(2, "q: at least 2 characters"),
      v.maxLength(200, "q: at most 200 characters"),
      v.check((q) => queryTerms(q).length > 0, "q: needs at least one word of letters or digits"),
      v.check((q) => queryTerms(q).length <= MAX_QUERY_TERMS, `q: at most ${MAX_QUERY_TERMS} words`),
      wireDoc({ type: "string", minLength: 2, maxLength: 200, description: `At most ${MAX_QUERY_TERMS} words` }),
    ),
    limit: v.optional(
      v.pipe(
        queryText,
        v.regex(/^\d{1,3}$/, `limit: an integer from 1 to ${MAX_MARKETPLACE_LIMIT}`),
        v.transform(Number),
        v.minValue(1, "limit: at least 1"),
        v.maxValue(MAX_MARKETPLACE_LIMIT, `limit: at most ${MAX_MARKETPLACE_LIMIT}`),
        wireDoc({ type: "integer", minimum: 1, maximum: MAX_MARKETPLACE_LIMIT, default: DEFAULT_MARKETPLACE_LIMIT }),
      ),
    ),
  },
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
