/**
 * Checks on a request body's text that must run before JSON.parse: parsing is where a deep or
 * huge document costs (and where every later step, validation included, inherits that cost). One
 * linear pass, no recursion, tracking where it is as a path like `body.rules[3].match`, so a
 * refusal can name the member. See docs/decisions/request-limits.md.
 */
export interface TextLimits {
  /** Containers inside containers: `{"a":[1]}` has depth 2. */
  maxDepth: number;
  /** Every value counts: each member, each array item, the containers themselves. */
  maxValues: number;
}

export type TextScan = { ok: true; endPath: string } | { ok: false; reason: "depth" | "values"; path: string };

interface Frame {
  array: boolean;
  /** Array: index of the current item. Object: the current member's name (null before the first). */
  index: number;
  key: string | null;
  expectKey: boolean;
}

/**
 * Scans JSON text for its nesting depth and value count, stopping at the first limit crossed.
 * Malformed JSON is not judged here (JSON.parse does that next); the scan only never loops or
 * recurses on it. `endPath` is where the text ends: for a prefix cut inside a string, the member
 * (or member name) that string belongs to.
 */
export function scanJsonText(text: string, limits: TextLimits, root = "body"): TextScan {
  const frames: Frame[] = [];
  const n = text.length;
  let values = 0;
  let i = 0;
  while (i < n) {
    const c = text.charCodeAt(i);
    if (c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d) {
      i++;
      continue;
    }
    const top = frames.at(-1);
    if (c === 0x22) {
      const end = stringEnd(text, i);
      if (top && !top.array && top.expectKey) {
        if (end >= n) return { ok: true, endPath: `${pathOf(frames, root, false)} (a member name)` };
        top.key = memberName(text.slice(i, end + 1));
        top.expectKey = false;
      } else {
        if (++values > limits.maxValues) return { ok: false, reason: "values", path: pathOf(frames, root, true) };
        if (end >= n) return { ok: true, endPath: pathOf(frames, root, true) };
      }
      i = end + 1;
      continue;
    }
    if (c === 0x7b || c === 0x5b) {
      if (++values > limits.maxValues) return { ok: false, reason: "values", path: pathOf(frames, root, true) };
      if (frames.length + 1 > limits.maxDepth) return { ok: false, reason: "depth", path: pathOf(frames, root, true) };
      frames.push({ array: c === 0x5b, index: 0, key: null, expectKey: c === 0x7b });
    } else if (c === 0x7d || c === 0x5d) {
      frames.pop();
    } else if (c === 0x2c) {
      if (top?.array) top.index++;
      else if (top) top.expectKey = true;
    } else if (c !== 0x3a) {
      // a number or a literal: one value, up to the next delimiter
      if (++values > limits.maxValues) return { ok: false, reason: "values", path: pathOf(frames, root, true) };
      while (i + 1 < n && !isDelimiter(text.charCodeAt(i + 1))) i++;
    }
    i++;
  }
  return { ok: true, endPath: pathOf(frames, root, true) };
}

/** Where a JSON text cut short ends: the member (or member name) its last string belongs to. */
export function jsonPathAtEnd(text: string, root = "body"): string {
  const scan = scanJsonText(text, { maxDepth: Infinity, maxValues: Infinity }, root);
  return scan.ok ? scan.endPath : root;
}

/**
 * Offset of the first byte that is not part of a well-formed UTF-8 sequence (RFC 3629: no
 * overlong forms, no surrogates, nothing above U+10FFFF), or -1 when all of it is.
 */
export function invalidUtf8Offset(b: Uint8Array): number {
  let i = 0;
  while (i < b.length) {
    const c = b[i]!;
    if (c < 0x80) {
      i++;
      continue;
    }
    const more = c >= 0xc2 && c <= 0xdf ? 1 : c >= 0xe0 && c <= 0xef ? 2 : c >= 0xf0 && c <= 0xf4 ? 3 : 0;
    if (more === 0) return i;
    const lo = c === 0xe0 ? 0xa0 : c === 0xf0 ? 0x90 : 0x80;
    const hi = c === 0xed ? 0x9f : c === 0xf4 ? 0x8f : 0xbf;
    const second = b[i + 1];
    if (second === undefined || second < lo || second > hi) return i;
    for (let k = 2; k <= more; k++) if (((b[i + k] ?? 0) & 0xc0) !== 0x80) return i;
    i += more + 1;
  }
  return -1;
}

/** Index of the closing quote of the string opening at `start`, or `text.length` when unterminated. */
function stringEnd(text: string, start: number): number {
  let j = start + 1;
  for (;;) {
    const quote = text.indexOf('"', j);
    if (quote < 0) return text.length;
    let backslashes = 0;
    while (text.charCodeAt(quote - 1 - backslashes) === 0x5c) backslashes++;
    if (backslashes % 2 === 0) return quote;
    j = quote + 1;
  }
}

function memberName(quoted: string): string {
  try {
    return JSON.parse(quoted) as string;
  } catch {
    return quoted.slice(1, -1);
  }
}

/** The path of the value being read; `current` false stops at the innermost container. */
function pathOf(frames: Frame[], root: string, current: boolean): string {
  let path = root;
  const last = current ? frames.length : frames.length - 1;
  for (let k = 0; k < last; k++) {
    const f = frames[k]!;
    if (f.array) path += `[${f.index}]`;
    else if (f.key !== null) path += `.${f.key}`;
  }
  return path;
}

function isDelimiter(c: number): boolean {
  return c === 0x2c || c === 0x5d || c === 0x7d || c === 0x3a || c === 0x22 || c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d || c === 0x7b || c === 0x5b;
}
