// The raw-body gate (INK §4.2): checks that must run on the wire text before JSON.parse,
// because parsing erases them (escapes decoded, duplicate keys collapsed, 1e309 → Infinity).
import { decodeUtf8, utf8Length } from "./bytes.ts";

/** Reference receiver cap for inbound bodies ([C9]); cards use the same 65 536 bytes. */
export const DEFAULT_MAX_BODY_BYTES = 65_536;

export type GateFailure =
  | "body_too_large"
  | "utf8"
  | "surrogate"
  | "number-range"
  | "member-name-escape"
  | "invalid_json";

export type GateResult = { ok: true; value: unknown; text: string } | { ok: false; reason: GateFailure };

/**
 * Run the gate in INK's order: size cap → strict UTF-8 (no BOM stripping) → lone-surrogate
 * escapes → out-of-range number literals → escaped member names → JSON.parse.
 * A string input is measured by its UTF-8 length; a string with a raw lone surrogate is not UTF-8.
 */
export function parseRawBody(body: Uint8Array | string, maxBytes: number = DEFAULT_MAX_BODY_BYTES): GateResult {
  let text: string;
  if (typeof body === "string") {
    if (utf8Length(body) > maxBytes) return { ok: false, reason: "body_too_large" };
    if (!body.isWellFormed()) return { ok: false, reason: "utf8" };
    text = body;
  } else if (body instanceof Uint8Array) {
    if (body.length > maxBytes) return { ok: false, reason: "body_too_large" };
    const decoded = decodeUtf8(body);
    if (decoded === null) return { ok: false, reason: "utf8" };
    text = decoded;
  } else {
    return { ok: false, reason: "invalid_json" };
  }
  const scan = scanText(text);
  if (scan !== null) return { ok: false, reason: scan };
  try {
    return { ok: true, value: JSON.parse(text), text };
  } catch {
    return { ok: false, reason: "invalid_json" };
  }
}

/**
 * One pass over the text for steps 4–6. A surrogate failure anywhere wins (step 4 scans the
 * whole text first), then a number-range failure, then an escaped member name.
 */
export function scanText(text: string): GateFailure | null {
  let numberFail = false;
  let memberFail = false;
  const n = text.length;
  // Next backslash at or after the cursor; string contents are skipped with indexOf (fast path).
  let nextBackslash = text.indexOf("\\");
  if (nextBackslash < 0) nextBackslash = n;
  let i = 0;
  while (i < n) {
    const c = text.charCodeAt(i);
    if (c === 0x22) {
      let j = i + 1;
      let escaped = false;
      for (;;) {
        let quote = text.indexOf('"', j);
        if (quote < 0) quote = n;
        if (nextBackslash < j) {
          nextBackslash = text.indexOf("\\", j);
          if (nextBackslash < 0) nextBackslash = n;
        }
        if (quote <= nextBackslash) {
          j = quote;
          break;
        }
        j = nextBackslash;
        escaped = true;
        if (text.charCodeAt(j + 1) !== 0x75) {
          j += 2; // `\\`, `\"`, `\n`, …: the escaped char never terminates the string
          continue;
        }
        const unit = hex4(text, j + 2);
        if (unit >= 0xd800 && unit <= 0xdbff) {
          const next = text.charCodeAt(j + 6) === 0x5c && text.charCodeAt(j + 7) === 0x75 ? hex4(text, j + 8) : -1;
          if (next < 0xdc00 || next > 0xdfff) return "surrogate";
          j += 12;
        } else if (unit >= 0xdc00 && unit <= 0xdfff) {
          return "surrogate";
        } else {
          j += unit < 0 ? 2 : 6; // malformed \u escapes are left to the parser
        }
      }
      if (escaped && !memberFail) {
        let k = j + 1;
        while (k < n && isJsonSpace(text.charCodeAt(k))) k++;
        if (text.charCodeAt(k) === 0x3a) memberFail = true;
      }
      i = j + 1;
      continue;
    }
    if (c === 0x2d || (c >= 0x30 && c <= 0x39)) {
      let j = i + 1;
      while (j < n && isNumberChar(text.charCodeAt(j))) j++;
      if (!numberFail) {
        const v = Number(text.slice(i, j));
        if (v === Infinity || v === -Infinity) numberFail = true;
      }
      i = j;
      continue;
    }
    i++;
  }
  if (numberFail) return "number-range";
  if (memberFail) return "member-name-escape";
  return null;
}

function hex4(text: string, at: number): number {
  if (at + 4 > text.length) return -1;
  let v = 0;
  for (let k = at; k < at + 4; k++) {
    const c = text.charCodeAt(k);
    let d: number;
    if (c >= 0x30 && c <= 0x39) d = c - 0x30;
    else if (c >= 0x41 && c <= 0x46) d = c - 0x37;
    else if (c >= 0x61 && c <= 0x66) d = c - 0x57;
    else return -1;
    v = (v << 4) | d;
  }
  return v;
}

function isNumberChar(c: number): boolean {
  return (c >= 0x30 && c <= 0x39) || c === 0x2b || c === 0x2d || c === 0x2e || c === 0x45 || c === 0x65;
}

function isJsonSpace(c: number): boolean {
  return c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d;
}
