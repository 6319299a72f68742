/**
 * FTS5 MATCH expressions built from user input. User text is never passed through as query
 * syntax: it is split into words of letters, digits and marks, each word is quoted as an FTS5
 * string (so `OR`, `NEAR`, `*`, `:`, `^` and quotes in the input are plain text), and the
 * operators come only from here. FTS5 then tokenizes each quoted word with the table's own
 * tokenizer (unicode61, case and accents folded).
 */
const WORD = /[\p{L}\p{N}\p{M}\p{Co}]+/gu;

export const MAX_QUERY_TERMS = 8;

/** The distinct words of `text`, lower-cased, in order. */
export function queryTerms(text: string): string[] {
  return [...new Set((text.match(WORD) ?? []).map((w) => w.toLowerCase()))];
}

/** An FTS5 string literal: the text in double quotes, inner quotes doubled. */
export function ftsString(text: string): string {
  return `"${text.replace(/"/g, '""')}"`;
}

/**
 * Every term must match the beginning of a word in some column (so a handle or name prefix finds
 * it, and `java` finds `JavaScript`). One-letter terms match whole words only: a prefix scan that
 * short would read the whole vocabulary (the prefix indexes start at 2 characters). One phrase per
 * term keeps bm25 cheap (an `exact OR name-prefix` form doubled the ranking cost).
 */
export function textClause(terms: string[]): string {
  return terms.map((t) => `${ftsString(t)}${t.length >= 2 ? " *" : ""}`).join(" AND ");
}

/**
 * A narrowing clause for an exact filter value: its words as a phrase in the given columns (the
 * exact, normalized comparison runs in SQL afterwards). Null when the value has no words.
 */
export function columnPhrase(columns: string[], value: string): string | null {
  const words = value.match(WORD);
  if (!words || words.length === 0) return null;
  return `{${columns.join(" ")}} : ${ftsString(words.join(" ").toLowerCase())}`;
}
