import * as v from "valibot";

/**
 * A query value as text. Elysia's query parser for standard schemas splits values containing a
 * comma into arrays, collects repeated keys into arrays and JSON-parses `[…]`/`{…}` values; this
 * puts the text back together (a comma-joined list) before the real checks run.
 */
export const queryText = v.pipe(
  v.union([v.string(), v.number(), v.boolean(), v.array(v.unknown()), v.record(v.string(), v.unknown())]),
  v.transform((value): string => asText(value)),
);

function asText(value: unknown): string {
  if (typeof value === "string") return value;
  if (Array.isArray(value)) return value.map(asText).join(",");
  return JSON.stringify(value);
}
