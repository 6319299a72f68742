import * as v from "valibot";
import { invalidInput } from "./errors.ts";
import { wireDoc } from "./wire-doc.ts";

/**
 * Keyset pagination for every list: newest first, `limit` (1–200, default 50) and an opaque
 * `cursor` (the last item's sort key and id) that is stable while new items arrive.
 */
export const PageQuery = v.object({
  limit: v.optional(
    v.pipe(
      v.string(),
      v.regex(/^\d{1,3}$/, "limit: an integer from 1 to 200"),
      v.transform(Number),
      v.minValue(1, "limit: at least 1"),
      v.maxValue(200, "limit: at most 200"),
      wireDoc({ type: "integer", minimum: 1, maximum: 200, default: 50 }),
    ),
  ),
  cursor: v.optional(v.pipe(v.string(), v.maxLength(200))),
});
export type PageQuery = v.InferOutput<typeof PageQuery>;

export interface Page<T> {
  items: T[];
  /** Pass as `cursor` to get the next page; null on the last page. */
  nextCursor: string | null;
}

export const DEFAULT_LIMIT = 50;

export function decodeCursor(cursor: string | undefined): { at: number; id: string } | null {
  if (cursor === undefined) return null;
  try {
    const [at, id] = JSON.parse(Buffer.from(cursor, "base64url").toString("utf8")) as [unknown, unknown];
    if (typeof at === "number" && Number.isSafeInteger(at) && typeof id === "string" && id.length <= 100) return { at, id };
  } catch {
    // fall through
  }
  throw invalidInput("cursor: not a cursor this node issued");
}

export function encodeCursor(at: number, id: string): string {
  return Buffer.from(JSON.stringify([at, id])).toString("base64url");
}

/** Given `limit + 1` rows, the page and its next cursor. */
export function pageOf<R, T>(rows: R[], limit: number, key: (r: R) => { at: number; id: string }, view: (r: R) => T): Page<T> {
  const more = rows.length > limit;
  const slice = more ? rows.slice(0, limit) : rows;
  const last = slice.at(-1);
  return { items: slice.map(view), nextCursor: more && last ? encodeCursor(key(last).at, key(last).id) : null };
}
