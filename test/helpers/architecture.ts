import { Glob } from "bun";
import { readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";

/**
 * STYLE.md's tier table as data (the table is the documentation; this is what checks it), and the
 * checker test/architecture.test.ts runs on src/ and on a planted tree. Allow-lists: a `src/` file
 * in no row, or an import its row does not list, is a violation. Every way of importing is read:
 * `import … from`, `import "…"`, `export … from`, `require(…)` and `import(…)` (an argument that is
 * not a string literal cannot be checked, so it is refused outside the composition root).
 *
 * Type-only imports (erased at build time) count between tiers of src/ (they still couple the
 * code) but not for packages and built-in modules (no runtime dependency). The one exception the
 * table makes: src/domain imports src/adapters only as `import type` (instances come through ctx).
 */
export interface Tier {
  name: string;
  /** Paths under src/ that belong to the row: a folder ("ink/") or a file ("main.ts"). */
  paths: string[];
  /** Tiers of src/ it may import (its own included); "*" for anything. */
  src: string[];
  /** Tiers it may import as `import type` only. */
  srcTypeOnly?: string[];
  /** Packages (a trailing "/" is a scope or a prefix), built-ins ("node:crypto", "node:*", "bun:*"); "*" for anything. */
  packages: string[];
  /** Reads no clock, randomness, globals or network: Date.now(), new Date(), Math.random, globalThis, Bun.*, fetch(). */
  pure?: boolean;
  /** `process` is refused entirely ("all") or only `process.env` ("env"). */
  process?: "all" | "env";
  /** Also refused: console.* (src/ink does not log). */
  strict?: boolean;
}

export const TIERS: Tier[] = [
  { name: "ink", paths: ["ink/"], src: ["ink"], packages: ["valibot", "@noble/", "multiformats"], pure: true, process: "all", strict: true },
  // node:crypto is the fast native Ed25519 verify and scrypt (docs/decisions/ink-ed25519-backends.md); nothing that does I/O.
  { name: "security", paths: ["security/"], src: ["security", "ink"], packages: ["jose", "@noble/", "node:crypto"], pure: true, process: "env" },
  { name: "adapters", paths: ["adapters/"], src: ["adapters", "security", "ink"], packages: ["node:*", "bun", "arctic", "jose", "nodemailer", "@noble/"] },
  // node:os: the WAL checkpoint Worker lowers its own thread's priority (setPriority; inbound-performance.md, "Tail latency").
  { name: "db", paths: ["db/"], src: ["db"], packages: ["drizzle-orm", "bun:sqlite", "node:fs", "node:os", "node:path", "node:url"] },
  {
    name: "domain",
    paths: ["domain/"],
    src: ["domain", "db", "security", "ink"],
    srcTypeOnly: ["adapters"],
    // graphology: the network analysis's graph object and Louvain (docs/decisions/contact-graph.md)
    packages: ["drizzle-orm", "valibot", "csv-parse", "@noble/", "graphology", "graphology-communities-louvain"],
    pure: true,
    process: "env",
  },
  { name: "http", paths: ["http/"], src: ["http", "domain", "security", "ink"], packages: ["elysia", "valibot", "@elysiajs/openapi", "@valibot/to-json-schema"] },
  { name: "jobs", paths: ["jobs/"], src: ["jobs", "domain", "security", "ink"], packages: [] },
  // The owner console (issue 17): browser code. Only the composition root imports it (its HTML page, read by adapters/html-bundle.ts).
  { name: "console", paths: ["console/"], src: ["console"], packages: ["preact"] },
  {
    name: "composition root",
    paths: ["main.ts", "cli/", "node/", "config.ts", "config-values.ts", "log.ts", "version.ts", "ids.ts", "clock.ts"],
    src: ["*"],
    packages: ["*"],
  },
];

export interface Violation {
  file: string;
  kind: string;
  detail: string;
}

const SOURCE = /\.(ts|tsx)$/;
const transpilers = { ts: new Bun.Transpiler({ loader: "ts" }), tsx: new Bun.Transpiler({ loader: "tsx" }) };

export function tierOf(srcRelative: string): Tier | null {
  return TIERS.find((t) => t.paths.some((p) => (p.endsWith("/") ? srcRelative.startsWith(p) : srcRelative === p))) ?? null;
}

interface ImportRef {
  spec: string;
  how: "import" | "export … from" | "require(" | "import(";
  typeOnly: boolean;
}

/** Every import of a file: static ones (type-only marked) from the source, dynamic ones and require from the transpiled code. */
export function importsOf(source: string, loader: "ts" | "tsx" = "ts"): { refs: ImportRef[]; unreadable: string[] } {
  const transpiler = transpilers[loader];
  const code = withoutMacros(source);
  const refs: ImportRef[] = [];
  const values = transpiler.scanImports(code);
  const valueSpecs = new Set(values.filter((v) => v.kind === "import-statement").map((v) => v.path));
  const STATIC = /(?:^|\n)[ \t]*(import|export)\s+(type\s+)?((?:[\w*$]+(?:\s+as\s+[\w$]+)?\s*,?\s*)?(?:\{[^}]*\})?)\s*from\s*["']([^"'\n]+)["']|(?:^|\n)[ \t]*import\s*["']([^"'\n]+)["']/g;
  for (const m of code.matchAll(STATIC)) {
    if (m[5]) {
      refs.push({ spec: m[5], how: "import", typeOnly: false });
      continue;
    }
    const spec = m[4]!;
    const explicitType = !!m[2] || (/^\{[^}]*\}$/.test(m[3]!.trim()) && m[3]!.replace(/[{}\s]/g, "") !== "" && m[3]!.slice(1, -1).split(",").every((s) => s.trim() === "" || /^type\s/.test(s.trim())));
    refs.push({ spec, how: m[1] === "export" ? "export … from" : "import", typeOnly: explicitType || !valueSpecs.has(spec) });
  }
  for (const v of values) {
    // JSX makes the transpiler add its runtime's import: only what the source names counts.
    if (!code.includes(`"${v.path}"`) && !code.includes(`'${v.path}'`) && !code.includes(`\`${v.path}\``)) continue;
    if (v.kind === "require-call") refs.push({ spec: v.path, how: "require(", typeOnly: false });
    if (v.kind === "dynamic-import") refs.push({ spec: v.path, how: "import(", typeOnly: false });
  }
  // String contents blanked first, so a message that says "import(" is not read as one.
  const js = transpiler.transformSync(code).replace(/(["'`])(?:\\.|(?!\1)[^\\])*\1/g, '""');
  const unreadable = [...js.matchAll(/(?<![\w$.])(import|require)\s*\(\s*(?!["'`])([^)]{0,40})/g)].map((m) => `${m[1]}(${m[2]}`);
  return { refs, unreadable };
}

/** Bun runs macros when it transpiles; the checker reads them as plain imports. */
function withoutMacros(code: string): string {
  return code.replace(/\s+with\s*\{\s*type:\s*["']macro["']\s*\}/g, "");
}

function packageOf(spec: string): string {
  if (spec.startsWith("node:") || spec.startsWith("bun:")) return spec.split("/")[0]!;
  const parts = spec.split("/");
  return spec.startsWith("@") ? `${parts[0]}/${parts[1]}` : parts[0]!;
}

function packageAllowed(tier: Tier, spec: string): boolean {
  const pkg = packageOf(spec);
  return tier.packages.some((p) => {
    if (p === "*") return true;
    if (p === "node:*") return pkg.startsWith("node:");
    if (p === "bun:*") return pkg.startsWith("bun:");
    if (p.endsWith("/")) return pkg.startsWith(p);
    return pkg === p;
  });
}

/** `domain/<capability>/…` → capability; files at the domain root → null. */
function capabilityOf(srcRelative: string): string | null {
  const parts = srcRelative.split("/");
  return parts[0] === "domain" && parts.length > 2 ? parts[1]! : null;
}

function isInternal(srcRelative: string): boolean {
  return srcRelative.startsWith("domain/") && srcRelative.split("/").includes("internal");
}

const kebab = (name: string) => name.replace(/[A-Z]+/g, (c) => `-${c.toLowerCase()}`);

export function checkArchitecture(root: string): Violation[] {
  const src = join(root, "src");
  const files = Array.from(new Glob("**/*.{ts,tsx}").scanSync({ cwd: src })).sort();
  const violations: Violation[] = [];
  const add = (file: string, kind: string, detail: string) => violations.push({ file: `src/${file}`, kind, detail });
  const graph = new Map<string, string[]>();

  for (const file of files) {
    const tier = tierOf(file);
    if (!tier) {
      add(file, "no row", `src/${dirname(file)} has no row in the tier table`);
      continue;
    }
    const code = readFileSync(join(src, file), "utf8");
    const loader = file.endsWith(".tsx") ? "tsx" : "ts";
    const { refs, unreadable } = importsOf(code, loader);
    const edges: string[] = [];
    if (!tier.src.includes("*")) for (const u of unreadable) add(file, "unreadable import", `${u}…: a computed module name cannot be checked`);
    for (const ref of refs) {
      if (ref.spec.startsWith(".")) {
        const target = relative(src, resolve(join(src, dirname(file)), ref.spec));
        if (target.startsWith("..") && !tier.src.includes("*")) {
          add(file, "import", `${ref.how} ${ref.spec}: outside src/`);
          continue;
        }
        if (SOURCE.test(target)) edges.push(target);
        const to = tierOf(target);
        const name = to?.name ?? "(no row)";
        if (tier.src.includes("*")) continue;
        if (!tier.src.includes(name)) {
          const typeOk = ref.typeOnly && (tier.srcTypeOnly ?? []).includes(name);
          if (!typeOk) add(file, (tier.srcTypeOnly ?? []).includes(name) ? "value import of a type-only tier" : "import", `${ref.how} ${ref.spec}: src/${tier.name} may not import src/${name}${(tier.srcTypeOnly ?? []).includes(name) ? " except as import type" : ""}`);
          continue;
        }
        if (isInternal(target)) {
          const own = capabilityOf(target);
          const mine = capabilityOf(file);
          const rootInternal = target.startsWith("domain/internal/");
          if (tier.name !== "domain") add(file, "internal", `${ref.how} ${ref.spec}: a domain internal/ helper is for the domain only (surfaces and jobs call verbs)`);
          else if (!rootInternal && own !== mine) add(file, "internal", `${ref.how} ${ref.spec}: domain/${own}/internal/ is for domain/${own} only`);
        }
      } else {
        if (ref.typeOnly) continue; // erased: no runtime dependency on a package
        if (!packageAllowed(tier, ref.spec)) add(file, "import", `${ref.how} ${ref.spec}: src/${tier.name} may not import ${packageOf(ref.spec)}`);
      }
    }
    graph.set(file, edges);
    if (tier.pure || tier.process) checkPurity(file, tier, transpilers[loader].transformSync(withoutMacros(code)), add);
    if (tier.name === "domain") checkDomainFile(file, code, add);
  }
  for (const cycle of fileCycles(graph)) add(cycle[0]!, "file cycle", cycle.join(" -> "));
  for (const [a, b] of folderCycles(graph)) add(`domain/${a}`, "folder cycle", `domain/${a} <-> domain/${b}`);
  return violations;
}

/** `js` is the transpiled file: comments and types are gone (and `new Date()` comes out as `new Date`). */
function checkPurity(file: string, tier: Tier, js: string, add: (file: string, kind: string, detail: string) => void): void {
  const rules: Array<[RegExp, string, string]> = [];
  if (tier.pure) {
    rules.push([/\bDate\.now\s*\(/, "clock", "Date.now(): take the time from ctx.clock"]);
    rules.push([/\bnew Date\s*(?:\(\s*\)|(?![\s(]))/, "clock", "new Date() reads the wall clock: take the time from ctx.clock"]);
    rules.push([/\bMath\.random\b/, "randomness", "Math.random: take randomness as a parameter (or crypto.getRandomValues for secrets)"]);
    rules.push([/\bglobalThis\s*[[.]/, "globals", "globalThis: take what you need as a parameter"]);
    rules.push([/\bBun\./, "globals", "Bun.*: the runtime is the adapters' business"]);
    rules.push([/(?<![\w$.])fetch\s*\(/, "network", "fetch(): network I/O belongs in src/adapters (verbs get a client through ctx)"]);
  }
  if (tier.process === "all") rules.push([/\bprocess\b/, "process", "process: the protocol core takes settings as parameters"]);
  if (tier.process === "env") rules.push([/\bprocess\.env\b/, "process", "process.env: settings come from src/config.ts"]);
  if (tier.strict) rules.push([/\bconsole\./, "globals", "console.*: the protocol core does not log"]);
  for (const [pattern, kind, detail] of rules) if (pattern.test(js)) add(file, kind, detail);
}

/**
 * A domain file outside internal/ is a verb file: it exports at most one function, named like the
 * file (`accept-connection.ts` exports `acceptConnection`); schemas, types and constants may go
 * with it. Files at the domain root (context, errors) export no function: helpers shared by every
 * capability live in domain/internal/.
 */
function checkDomainFile(file: string, code: string, add: (file: string, kind: string, detail: string) => void): void {
  if (isInternal(file)) return;
  const functions = [...code.matchAll(/^export\s+(?:async\s+)?function\s*\*?\s*([\w$]+)|^export\s+const\s+([\w$]+)\s*(?::[^=]+)?=\s*(?:async\s+)?(?:\([^)]*\)|[\w$]+)\s*(?::[^=]+)?=>|^export\s+const\s+([\w$]+)\s*=\s*(?:async\s+)?function\b/gm)].map((m) => (m[1] ?? m[2] ?? m[3])!);
  const base = file.split("/").at(-1)!.replace(SOURCE, "");
  if (capabilityOf(file) === null) {
    if (functions.length > 0) add(file, "verb file", `the domain root holds types and errors only; ${functions.join(", ")} belong in a capability or domain/internal/`);
    return;
  }
  if (functions.length > 1) add(file, "verb file", `exports ${functions.length} functions (${functions.join(", ")}): one verb per file, helpers in internal/`);
  else if (functions.length === 1 && functions[0]!.toLowerCase() !== base.replaceAll("-", "")) add(file, "verb file", `exports ${functions[0]}: name the file for its verb (${kebab(functions[0]!)}.ts)`);
}

/** Strongly connected components of more than one file (Tarjan). */
function fileCycles(graph: Map<string, string[]>): string[][] {
  let index = 0;
  const stack: string[] = [];
  const on = new Set<string>();
  const ix = new Map<string, number>();
  const low = new Map<string, number>();
  const out: string[][] = [];
  const visit = (v: string) => {
    ix.set(v, index);
    low.set(v, index++);
    stack.push(v);
    on.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!graph.has(w)) continue;
      if (!ix.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (on.has(w)) low.set(v, Math.min(low.get(v)!, ix.get(w)!));
    }
    if (low.get(v) === ix.get(v)) {
      const c: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        on.delete(w);
        c.push(w);
      } while (w !== v);
      if (c.length > 1) out.push(c.sort());
    }
  };
  for (const v of graph.keys()) if (!ix.has(v)) visit(v);
  return out;
}

/** Pairs of domain capabilities (domain/internal counts as one) that import each other, directly or through others. */
function folderCycles(graph: Map<string, string[]>): Array<[string, string]> {
  const folder = (f: string) => (f.startsWith("domain/") && f.split("/").length > 2 ? f.split("/")[1]! : null);
  const edges = new Map<string, Set<string>>();
  for (const [f, targets] of graph) {
    const a = folder(f);
    if (!a) continue;
    for (const t of targets) {
      const b = folder(t);
      if (b && b !== a) (edges.get(a) ?? edges.set(a, new Set()).get(a)!).add(b);
    }
  }
  const reach = (from: string, to: string) => {
    const seen = new Set<string>();
    const todo = [from];
    while (todo.length) {
      const x = todo.pop()!;
      for (const y of edges.get(x) ?? []) {
        if (y === to) return true;
        if (!seen.has(y)) seen.add(y), todo.push(y);
      }
    }
    return false;
  };
  const pairs: Array<[string, string]> = [];
  for (const [a, bs] of edges) for (const b of bs) if (a < b && reach(b, a)) pairs.push([a, b]);
  return pairs;
}
