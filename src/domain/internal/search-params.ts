import * as v from "valibot";
import { MAX_QUERY_TERMS, queryTerms } from "./fts-query.ts";
import { queryText } from "./query-text.ts";
import { wireDoc } from "./wire-doc.ts";

/** A full-text `q` (SPEC Limits: at least 2 characters): 2-200 characters, 1 to MAX_QUERY_TERMS words. */
export const searchTextParam = v.pipe(
  queryText,
  v.minLength(2, "q: at least 2 characters"),
  v.maxLength(200, "q: at most 200 characters"),
  v.check((q) => queryTerms(q).length > 0, "q: needs at least one word of letters or digits"),
  v.check((q) => queryTerms(q).length <= MAX_QUERY_TERMS, `q: at most ${MAX_QUERY_TERMS} words`),
  wireDoc({ type: "string", minLength: 2, maxLength: 200, description: `At most ${MAX_QUERY_TERMS} words` }),
);

/** An optional `limit` query parameter: an integer from 1 to `max` (absent: the caller's default). */
export function limitParam(max: number, byDefault: number) {
  return v.optional(
    v.pipe(
      queryText,
      v.regex(/^\d{1,3}$/, `limit: an integer from 1 to ${max}`),
      v.transform(Number),
      v.minValue(1, "limit: at least 1"),
      v.maxValue(max, `limit: at most ${max}`),
      wireDoc({ type: "integer", minimum: 1, maximum: max, default: byDefault }),
    ),
  );
}
