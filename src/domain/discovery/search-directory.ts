import * as v from "valibot";
import type { Ctx } from "../context.ts";
import { queryText } from "../internal/query-text.ts";
import { limitParam, searchTextParam } from "../internal/search-params.ts";
import { wireDoc } from "../internal/wire-doc.ts";
import { columnPhrase, MAX_QUERY_TERMS, queryTerms, textClause } from "../internal/fts-query.ts";
import { discoveryResult, facetNeedle, type DiscoveryResult, type FacetKind } from "./internal/listings.ts";
import { matchListings } from "./internal/match-listings.ts";

export const MAX_DISCOVER_LIMIT = 50;
export const DEFAULT_DISCOVER_LIMIT = 20;
const MAX_LIST_ITEMS = 10;
const MAX_ITEM_LENGTH = 100;

/** A comma-separated list parameter: 1-10 values of 1-100 characters (blank items ignored). */
const listParam = (name: string) =>
  v.optional(
    v.pipe(
      queryText,
      v.maxLength(2000, `${name}: too long`),
      v.transform((s) => s.split(",").map((x) => x.trim()).filter((x) => x.length > 0)),
      v.minLength(1, `${name}: lists no value`),
      v.maxLength(MAX_LIST_ITEMS, `${name}: at most ${MAX_LIST_ITEMS} comma-separated values`),
      v.check((xs) => xs.every((x) => x.length <= MAX_ITEM_LENGTH), `${name}: each value at most ${MAX_ITEM_LENGTH} characters`),
      wireDoc({ type: "string", maxLength: 2000, description: `Comma-separated: at most ${MAX_LIST_ITEMS} values of at most ${MAX_ITEM_LENGTH} characters` }),
    ),
  );

/** `GET /discover` query (SPEC Endpoints, Limits). Unknown parameters are ignored. */
export const DiscoverQuery = v.object({
  q: searchTextParam,
  limit: limitParam(MAX_DISCOVER_LIMIT, DEFAULT_DISCOVER_LIMIT),
  skills: listParam("skills"),
  interests: listParam("interests"),
  openTo: listParam("openTo"),
  roles: listParam("roles"),
  location: v.optional(
    v.pipe(
      queryText,
      v.maxLength(200, "location: at most 200 characters"),
      v.check((s) => queryTerms(s).length > 0, "location: needs at least one word of letters or digits"),
      wireDoc({ type: "string", maxLength: 200 }),
    ),
  ),
}, "q is required (at least 2 characters)");
export type DiscoverQuery = v.InferOutput<typeof DiscoverQuery>;

/**
 * `GET /discover`: listed agents matching every word of `q` (whole words anywhere, word prefixes
 * in handles and names), filtered by exact skills, interests, openTo and roles (all given values
 * must be present, case- and accent-insensitive; a card's discovery tags count as skills) and by
 * location words. Ranked by bm25 with column weights (handle and display name 10, headline and
 * skills 5, tags 3, bio, interests, openTo and roles 2, location 1; see match-listings.ts for the
 * bound on very broad queries). Delisted and dropped entries are not in the index; the status is
 * checked again.
 */
export function searchDirectory(ctx: Ctx, query: DiscoverQuery): { results: DiscoveryResult[] } {
  const terms = queryTerms(query.q).slice(0, MAX_QUERY_TERMS);
  const clauses: string[] = [];
  const needles: string[] = [];
  const filter = (kind: FacetKind, columns: string[], values: string[] | undefined) => {
    for (const value of values ?? []) {
      needles.push(facetNeedle(kind, value));
      const narrowing = columnPhrase(columns, value);
      if (narrowing) clauses.push(narrowing);
    }
  };
  filter("s", ["skills", "tags"], query.skills);
  filter("i", ["interests"], query.interests);
  filter("o", ["open_to"], query.openTo);
  filter("r", ["roles"], query.roles);
  if (query.location) clauses.push(...queryTerms(query.location).map((w) => columnPhrase(["location"], w)!));
  const rows = matchListings(ctx.db, { match: [textClause(terms), ...clauses].join(" AND "), needles, limit: query.limit ?? DEFAULT_DISCOVER_LIMIT });
  return { results: rows.map(discoveryResult) };
}
