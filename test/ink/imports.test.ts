// src/ink is a library (STYLE "The protocol core is a library"): it imports only valibot,
// @noble/*, multiformats and its own files, and reads no clock, network, process or console.
import { expect, test } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";

const INK = join(import.meta.dir, "..", "..", "src", "ink");
const files = readdirSync(INK).filter((f) => f.endsWith(".ts"));
const ALLOWED = [/^\.\/[a-z0-9-]+\.ts$/, /^valibot$/, /^@noble\/[a-z0-9-]+(\/[a-z0-9_.-]+)*$/, /^multiformats(\/[a-z0-9_.-]+)*$/];
const FORBIDDEN_CALLS = [/\bDate\.now\s*\(/, /new Date\(\s*\)/, /\bperformance\.now\b/, /\bconsole\./, /\bfetch\s*\(/, /\bprocess\./, /\bBun\./, /\bMath\.random\b/, /\brequire\s*\(/, /\bimport\s*\(/];

test("src/ink has files", () => expect(files.length).toBeGreaterThan(10));

for (const file of files) {
  test(`src/ink/${file} imports only allowed modules and reads no ambient state`, () => {
    const text = readFileSync(join(INK, file), "utf8");
    const specifiers = [...text.matchAll(/^\s*(?:import|export)\b[^'"]*?from\s*["']([^"']+)["']/gm)].map((m) => m[1] as string);
    for (const s of specifiers) expect({ file, s, allowed: ALLOWED.some((re) => re.test(s)) }).toEqual({ file, s, allowed: true });
    const code = text.replace(/\/\/.*$/gm, "").replace(/\/\*[\s\S]*?\*\//g, "");
    for (const re of FORBIDDEN_CALLS) expect({ file, re: String(re), found: re.test(code) }).toEqual({ file, re: String(re), found: false });
  });
}
