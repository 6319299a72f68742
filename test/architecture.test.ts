import { describe, expect, test } from "bun:test";
import { Glob } from "bun";
import { readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";

/**
 * STYLE.md's tier table, checked on every import line of src/. The table is the documentation:
 *
 * | tier          | must not import                                                        |
 * | src/ink       | anything else in src/, elysia, drizzle, bun:*, node:*, `process`       |
 * | src/security  | elysia, drizzle-orm, bun:sqlite, src/db, src/domain, src/http, jobs    |
 * | src/db        | src/domain, src/http, src/jobs, src/security, elysia                   |
 * | src/domain    | elysia, src/http, src/jobs, `process.env`                              |
 * | src/http      | drizzle-orm, bun:sqlite, src/db, src/jobs                              |
 * | src/jobs      | src/http, elysia                                                       |
 * | src/mail      | elysia, drizzle-orm, bun:*, src/db, src/domain, src/http, src/jobs     |
 * | src/console   | anything but preact and itself (browser code, bundled into the page)   |
 * main.ts, app.ts, config.ts (+ config-values.ts), log.ts, version.ts and src/cli/ are the composition root: anything.
 *
 * Deliberate deviation: src/security may import node:* (node:crypto is the fast native Ed25519
 * and scrypt; the key file needs node:fs). src/ink stays pure.
 */
const ROOT = resolve(import.meta.dir, "..");
const SRC = join(ROOT, "src");

type Rule = { tier: string; forbidden: Array<{ test: (spec: string, target: string | null) => boolean; why: string }> };

const inSrc = (dir: string) => (_spec: string, target: string | null) => target !== null && (target === join(SRC, dir) || target.startsWith(join(SRC, dir) + "/"));
const pkg = (...names: string[]) => (spec: string) => names.some((n) => spec === n || spec.startsWith(n + "/"));
const prefix = (p: string) => (spec: string) => spec.startsWith(p);

const RULES: Rule[] = [
  {
    tier: "ink",
    forbidden: [
      { test: (_s, t) => t !== null && !t.startsWith(join(SRC, "ink") + "/"), why: "src/ink imports nothing else from src/" },
      { test: (s) => !s.startsWith(".") && !/^(valibot|@noble\/|multiformats)/.test(s), why: "src/ink may import only valibot, @noble/*, multiformats" },
    ],
  },
  {
    tier: "security",
    forbidden: [
      { test: pkg("elysia", "drizzle-orm", "@elysiajs/openapi"), why: "security is framework- and storage-free" },
      { test: prefix("bun:"), why: "security does not touch SQLite" },
      { test: inSrc("db"), why: "security must not import src/db" },
      { test: inSrc("domain"), why: "security must not import src/domain" },
      { test: inSrc("http"), why: "security must not import src/http" },
      { test: inSrc("jobs"), why: "security must not import src/jobs" },
    ],
  },
  {
    tier: "db",
    forbidden: [
      { test: inSrc("domain"), why: "db knows nothing of the domain" },
      { test: inSrc("http"), why: "db knows nothing of HTTP" },
      { test: inSrc("jobs"), why: "db knows nothing of jobs" },
      { test: inSrc("security"), why: "db knows nothing of security" },
      { test: pkg("elysia"), why: "db knows nothing of HTTP" },
    ],
  },
  {
    tier: "domain",
    forbidden: [
      { test: pkg("elysia", "@elysiajs/openapi"), why: "domain never imports Elysia" },
      { test: inSrc("http"), why: "domain never imports src/http" },
      { test: inSrc("jobs"), why: "domain never imports src/jobs" },
    ],
  },
  {
    tier: "http",
    forbidden: [
      { test: pkg("drizzle-orm"), why: "http goes through a domain verb, never drizzle" },
      { test: prefix("bun:sqlite"), why: "http never touches SQLite" },
      { test: inSrc("db"), why: "http never imports src/db" },
      { test: inSrc("jobs"), why: "http never imports src/jobs" },
    ],
  },
  {
    // Outbound mail adapters (SMTP, log): implement domain/owner/mailer.ts structurally.
    tier: "mail",
    forbidden: [
      { test: pkg("elysia", "drizzle-orm"), why: "mail is framework- and storage-free" },
      { test: prefix("bun:"), why: "mail does not touch SQLite" },
      { test: inSrc("db"), why: "mail must not import src/db" },
      { test: inSrc("domain"), why: "mail must not import src/domain" },
      { test: inSrc("http"), why: "mail must not import src/http" },
      { test: inSrc("jobs"), why: "mail must not import src/jobs" },
    ],
  },
  {
    // The owner console runs in the browser: it reaches the node only through HTTP (the owner API).
    tier: "console",
    forbidden: [
      { test: (_s, t) => t !== null && !t.startsWith(join(SRC, "console") + "/"), why: "the console imports nothing else from src/ (it is a client of the owner API)" },
      { test: (s) => !s.startsWith(".") && !/^preact(\/|$)/.test(s), why: "the console may import only preact (every byte goes to the browser)" },
    ],
  },
  {
    tier: "jobs",
    forbidden: [
      { test: inSrc("http"), why: "jobs never import src/http" },
      { test: pkg("elysia"), why: "jobs never import Elysia" },
    ],
  },
];

const IMPORT = /(?:^|\n)\s*(?:import|export)\s[^;]*?from\s*["']([^"']+)["']|(?:^|\n)\s*import\s*["']([^"']+)["']|\bimport\(\s*["']([^"']+)["']\s*\)/g;

function importsOf(file: string): string[] {
  const text = readFileSync(file, "utf8");
  const specs: string[] = [];
  for (const m of text.matchAll(IMPORT)) specs.push((m[1] ?? m[2] ?? m[3])!);
  return specs;
}

function sourceFiles(tier: string): string[] {
  return Array.from(new Glob(`${tier}/**/*.{ts,tsx}`).scanSync({ cwd: SRC })).map((f) => join(SRC, f));
}

describe("architecture: the tier import table", () => {
  for (const rule of RULES) {
    test(`src/${rule.tier} respects its import rules`, () => {
      const files = sourceFiles(rule.tier);
      if (rule.tier !== "jobs") expect(files.length).toBeGreaterThan(0); // jobs/ fills up with federation
      const violations: string[] = [];
      for (const file of files) {
        for (const spec of importsOf(file)) {
          const target = spec.startsWith(".") ? resolve(dirname(file), spec) : null;
          for (const f of rule.forbidden) {
            if (f.test(spec, target)) violations.push(`${relative(ROOT, file)} imports ${spec}: ${f.why}`);
          }
        }
      }
      expect(violations).toEqual([]);
    });
  }

  test("src/ink reads no clock, environment or globals", () => {
    const offenders = sourceFiles("ink").filter((f) => /\b(Date\.now|new Date\(\)|process\.|Bun\.|globalThis\.|console\.)/.test(readFileSync(f, "utf8")));
    expect(offenders.map((f) => relative(ROOT, f))).toEqual([]);
  });

  test("domain, security and ink never read the wall clock or process.env directly", () => {
    const files = [...sourceFiles("domain"), ...sourceFiles("security"), ...sourceFiles("ink")];
    const offenders = files.filter((f) => {
      const text = readFileSync(f, "utf8").replace(/\/\/.*$|\/\*[\s\S]*?\*\//gm, "");
      return /\bDate\.now\(\)|process\.env/.test(text) && !f.endsWith("domain/context.ts");
    });
    expect(offenders.map((f) => relative(ROOT, f))).toEqual([]);
  });

  test("the rule checker itself catches a violation", () => {
    const http = RULES.find((r) => r.tier === "http")!;
    const fake = join(SRC, "http/surfaces/x.ts");
    const target = resolve(dirname(fake), "../../db/client.ts");
    expect(http.forbidden.some((f) => f.test("../../db/client.ts", target))).toBe(true);
    expect(http.forbidden.some((f) => f.test("../../domain/errors.ts", resolve(dirname(fake), "../../domain/errors.ts")))).toBe(false);
  });
});
