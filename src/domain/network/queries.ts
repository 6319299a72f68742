import * as v from "valibot";
import { wireDoc } from "../internal/wire-doc.ts";

/** An integer query parameter from 1 to `max` (default `dflt`), as the page limit is read. */
function intParam(name: string, max: number, dflt: number) {
  return v.optional(
    v.pipe(
      v.string(),
      v.regex(/^\d{1,5}$/, `${name}: an integer from 1 to ${max}`),
      v.transform(Number),
      v.minValue(1, `${name}: at least 1`),
      v.maxValue(max, `${name}: at most ${max}`),
      wireDoc({ type: "integer", minimum: 1, maximum: max, default: dflt }),
    ),
    String(dflt),
  );
}

/** `GET …/network/graph`: how many contacts to draw (the best-tied first). */
export const GraphQuery = v.object({ limit: intParam("limit", 2000, 500) });
/** `GET …/network/clusters`: how many members to list per cluster. */
export const ClustersQuery = v.object({ maxMembers: intParam("maxMembers", 2000, 500) });
/** `GET …/decaying`: how many contacts to list. */
export const DecayingQuery = v.object({ limit: intParam("limit", 500, 100) });
