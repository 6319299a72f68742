// Small valibot building blocks shared by the INK schemas. Every object schema first checks
// for a plain JSON object: valibot's object schemas alone accept arrays.
import * as v from "valibot";
import { isPlainObject } from "./bytes.ts";
import { parseTimestamp } from "./timestamp.ts";

type Entries = v.ObjectEntries;

/** Strict object: unknown members reject (INK §3.2 strict surfaces). */
export function strict<const E extends Entries>(entries: E) {
  return v.pipe(v.custom<Record<string, unknown>>(isPlainObject, "expected a JSON object"), v.strictObject(entries));
}

/** Tolerant object: unknown members are ignored and kept (INK §3.2 tolerant surfaces). */
export function loose<const E extends Entries>(entries: E) {
  return v.pipe(v.custom<Record<string, unknown>>(isPlainObject, "expected a JSON object"), v.looseObject(entries));
}

/** String of at most `max` UTF-16 code units (INK caps are UTF-16 unless stated). */
export function str(max: number) {
  return v.pipe(v.string(), v.maxLength(max));
}

/** Non-empty string of at most `max` UTF-16 code units. */
export function text(max: number) {
  return v.pipe(v.string(), v.minLength(1), v.maxLength(max));
}

/** A strict INK timestamp (INK §5). */
export const strictTimestamp = v.pipe(
  v.string(),
  v.check((s) => parseTimestamp(s) !== null, "expected a strict RFC 3339 timestamp"),
);

/** A safe integer ≥ 1. */
export const positiveInt = v.pipe(v.number(), v.safeInteger(), v.minValue(1));

/** A safe integer ≥ 0. */
export const nonNegativeInt = v.pipe(v.number(), v.safeInteger(), v.minValue(0));

/** An http(s) URL of at most 2048 units (payload link fields). */
export const httpUrl = v.pipe(
  v.string(),
  v.maxLength(2048),
  v.check((s) => {
    if (!URL.canParse(s)) return false;
    const p = new URL(s).protocol;
    return p === "https:" || p === "http:";
  }, "expected an http(s) URL"),
);

/** Run a schema without throwing; abortEarly keeps rejection cheap on hostile input. */
export function check<S extends v.GenericSchema>(
  schema: S,
  input: unknown,
): { ok: true; value: v.InferOutput<S> } | { ok: false; issue: string } {
  try {
    const r = v.safeParse(schema, input, { abortEarly: true });
    if (r.success) return { ok: true, value: r.output };
    const first = r.issues[0];
    const path = first?.path?.map((p) => String(p.key)).join(".") ?? "";
    return { ok: false, issue: path === "" ? (first?.message ?? "invalid") : `${path}: ${first?.message ?? "invalid"}` };
  } catch {
    return { ok: false, issue: "invalid" };
  }
}
