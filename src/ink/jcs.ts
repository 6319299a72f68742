// RFC 8785 JSON Canonicalization Scheme under INK's safe-integer number profile (INK §4.1).
// Output is byte-identical to the `canonicalize` npm package for every value INK lets through;
// everything else is refused, never silently coerced.
import { isPlainObject, utf8Length } from "./bytes.ts";

/** Complexity bounds checked while canonicalizing (reference values, INK §4.1). */
export const JCS_LIMITS = {
  maxNodes: 10_000,
  maxDepth: 32,
  maxStringUnits: 1_200_000,
  maxOutput: 1_048_576,
} as const;

export type CanonicalFailure =
  | "unsafe_number"
  | "lone_surrogate"
  | "unsafe_member_name"
  | "not_json"
  | "too_deep"
  | "too_many_nodes"
  | "too_large";

export type CanonicalResult = { ok: true; text: string } | { ok: false; reason: CanonicalFailure };

export type CanonicalPairResult =
  /** `stripped` = `full.slice(0, cut[0]) + full.slice(cut[1])` (cut is null when nothing was omitted). */
  | { ok: true; full: string; stripped: string; cut: readonly [number, number] | null }
  | { ok: false; reason: CanonicalFailure };

/**
 * JCS text of a JSON value. Refuses fractions, |n| > 2^53−1, −0, NaN/±∞, lone surrogates,
 * member names that would need escaping, non-plain objects, and values past JCS_LIMITS.
 */
export function canonicalize(value: unknown): CanonicalResult {
  const st: WalkState = { nodes: 0, units: 0, fail: null };
  const text = walk(value, 0, st);
  if (text === null) return { ok: false, reason: st.fail ?? "not_json" };
  if (!outputFits(text)) return { ok: false, reason: "too_large" };
  return { ok: true, text };
}

/**
 * JCS of an object both whole and with one top-level member removed, in one pass. The transport
 * base covers the whole body (INK §6.1 line 5) and the body signature the body minus `signature`
 * (INK §7); sharing the member serializations halves the hot-path canonicalization cost.
 */
export function canonicalizePair(obj: Record<string, unknown>, omit: string): CanonicalPairResult {
  if (!isPlainObject(obj)) return { ok: false, reason: "not_json" };
  const st: WalkState = { nodes: 1, units: 0, fail: null };
  const keys = Object.keys(obj).sort();
  let full = "{";
  let cut: [number, number] | null = null;
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i] as string;
    const member = serializeMember(obj, key, 1, st);
    if (member === null) return { ok: false, reason: st.fail ?? "not_json" };
    const start = full.length;
    full += i === 0 ? member : "," + member;
    // Drop the member with its separating comma: the one before it, or after it when first.
    if (key === omit) cut = i === 0 ? [start, full.length + (keys.length > 1 ? 1 : 0)] : [start, full.length];
  }
  full += "}";
  if (!outputFits(full)) return { ok: false, reason: "too_large" };
  const stripped = cut === null ? full : full.slice(0, cut[0]) + full.slice(cut[1]);
  return { ok: true, full, stripped, cut };
}

type WalkState = { nodes: number; units: number; fail: CanonicalFailure | null };

const UNSAFE_MEMBER_NAME = /["\\\u0000-\u001f]/;
const NEEDS_ESCAPE = UNSAFE_MEMBER_NAME;

function walk(value: unknown, depth: number, st: WalkState): string | null {
  if (depth > JCS_LIMITS.maxDepth) return fail(st, "too_deep");
  if (++st.nodes > JCS_LIMITS.maxNodes) return fail(st, "too_many_nodes");
  switch (typeof value) {
    case "string":
      return str(value, st);
    case "number":
      // INK §4.1: only safe integers, never −0; rendered as plain base-10.
      if (!Number.isSafeInteger(value) || Object.is(value, -0)) return fail(st, "unsafe_number");
      return String(value);
    case "boolean":
      return value ? "true" : "false";
    case "object": {
      if (value === null) return "null";
      if (Array.isArray(value)) {
        let out = "[";
        for (let i = 0; i < value.length; i++) {
          const item = walk(value[i], depth + 1, st);
          if (item === null) return null;
          out += i === 0 ? item : "," + item;
        }
        return out + "]";
      }
      if (!isPlainObject(value)) return fail(st, "not_json");
      const keys = Object.keys(value).sort();
      let out = "{";
      for (let i = 0; i < keys.length; i++) {
        const member = serializeMember(value, keys[i] as string, depth + 1, st);
        if (member === null) return null;
        out += i === 0 ? member : "," + member;
      }
      return out + "}";
    }
    default:
      return fail(st, "not_json");
  }
}

function serializeMember(obj: Record<string, unknown>, key: string, depth: number, st: WalkState): string | null {
  // INK §4.1: names needing escapes are refused (the raw gate rejects them on receipt too).
  if (UNSAFE_MEMBER_NAME.test(key)) return fail(st, "unsafe_member_name");
  if (++st.nodes > JCS_LIMITS.maxNodes) return fail(st, "too_many_nodes");
  const k = str(key, st);
  if (k === null) return null;
  const v = walk(obj[key], depth, st);
  if (v === null) return null;
  return k + ":" + v;
}

function str(s: string, st: WalkState): string | null {
  st.units += s.length;
  if (st.units > JCS_LIMITS.maxStringUnits) return fail(st, "too_large");
  if (!s.isWellFormed()) return fail(st, "lone_surrogate");
  // For well-formed strings JSON.stringify escapes exactly as RFC 8785 §3.2.2.2 requires;
  // strings with nothing to escape (the common case) are just quoted.
  return NEEDS_ESCAPE.test(s) ? JSON.stringify(s) : `"${s}"`;
}

function outputFits(text: string): boolean {
  if (text.length > JCS_LIMITS.maxOutput) return false;
  // UTF-8 is at most 3 bytes per UTF-16 unit; only measure when it could exceed the cap.
  return text.length * 3 <= JCS_LIMITS.maxOutput || utf8Length(text) <= JCS_LIMITS.maxOutput;
}

function fail(st: WalkState, reason: CanonicalFailure): null {
  st.fail ??= reason;
  return null;
}
