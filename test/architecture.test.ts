import { afterAll, describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { checkArchitecture, type Violation } from "./helpers/architecture.ts";

/**
 * STYLE.md's tier table (test/helpers/architecture.ts holds it as data) on every file of src/:
 * allow-lists per tier, every way of importing, purity of ink/security/domain, one verb per domain
 * file, internal/ helpers kept inside the domain, no file or domain folder cycles.
 */
const ROOT = resolve(import.meta.dir, "..");

const show = (v: Violation) => `${v.kind}: ${v.file}: ${v.detail}`;

describe("architecture", () => {
  test("src/ follows the tier table", () => {
    expect(checkArchitecture(ROOT).map(show)).toEqual([]);
  });

  test(`the checker catches every kind of violation planted in a tree (${PLANTED.length} kinds), and nothing in a clean one`, () => {
    const root = plantTree();
    const found = checkArchitecture(root);
    const byFile = new Map<string, Violation[]>();
    for (const v of found) byFile.set(v.file, [...(byFile.get(v.file) ?? []), v]);
    const missed = PLANTED.filter((p) => !(byFile.get(p.file) ?? []).some((v) => v.kind === p.kind && v.detail.includes(p.detail ?? ""))).map((p) => `${p.what} (${p.file})`);
    expect(missed).toEqual([]);
    // The clean files of every tier (allowed imports of each kind) raise nothing.
    expect(found.filter((v) => CLEAN.some((c) => c.file === v.file)).map(show)).toEqual([]);
    // And nothing beyond what was planted (the cycles name one of their files).
    expect(found.filter((v) => !PLANTED.some((p) => p.file === v.file) && !CLEAN.some((c) => c.file === v.file)).map(show)).toEqual([]);
  });
});

interface Planted {
  what: string;
  file: string;
  code: string;
  kind: string;
  /** A part of the violation's detail (which import, how it was made). */
  detail?: string;
}

/** One file per violation, so each one is found for the right reason. */
const PLANTED: Planted[] = [
  { what: "ink imports another src/ tier", file: "src/ink/p-db.ts", code: `import { db } from "../db/client.ts";\nexport const x = db;`, kind: "import", detail: "../db/client.ts" },
  { what: "ink imports a node built-in", file: "src/ink/p-node.ts", code: `import { createHash } from "node:crypto";\nexport const x = createHash;`, kind: "import", detail: "node:crypto" },
  { what: "ink imports a package off its list", file: "src/ink/p-pkg.ts", code: `import { Elysia } from "elysia";\nexport const x = Elysia;`, kind: "import", detail: "elysia" },
  { what: "ink reads process", file: "src/ink/p-process.ts", code: `export const x = process.argv;`, kind: "process" },
  { what: "ink reads globalThis[", file: "src/ink/p-global.ts", code: `export const x = globalThis["crypto"];`, kind: "globals" },
  { what: "ink logs", file: "src/ink/p-console.ts", code: `export function f(): void {\n  console.log("x");\n}`, kind: "globals" },
  { what: "security imports src/domain", file: "src/security/p-domain.ts", code: `import { x } from "../domain/verbs/do-it.ts";\nexport const y = x;`, kind: "import", detail: "src/domain" },
  { what: "security does file I/O", file: "src/security/p-fs.ts", code: `import { readFileSync } from "node:fs";\nexport const x = readFileSync;`, kind: "import", detail: "node:fs" },
  { what: "security uses Math.random", file: "src/security/p-random.ts", code: `export const x = Math.random();`, kind: "randomness" },
  { what: "security fetches", file: "src/security/p-fetch.ts", code: `export const x = () => fetch("https://example.com");`, kind: "network" },
  { what: "adapters import src/domain", file: "src/adapters/p-domain.ts", code: `import { x } from "../domain/verbs/do-it.ts";\nexport const y = x;`, kind: "import", detail: "src/domain" },
  { what: "adapters import drizzle", file: "src/adapters/p-drizzle.ts", code: `import { eq } from "drizzle-orm";\nexport const x = eq;`, kind: "import", detail: "drizzle-orm" },
  { what: "db imports src/domain", file: "src/db/p-domain.ts", code: `import { x } from "../domain/verbs/do-it.ts";\nexport const y = x;`, kind: "import", detail: "src/domain" },
  { what: "db imports src/http", file: "src/db/p-http.ts", code: `import { x } from "../http/clean.ts";\nexport const y = x;`, kind: "import", detail: "src/http" },
  { what: "domain imports elysia", file: "src/domain/verbs/p-elysia.ts", code: `import { Elysia } from "elysia";\nexport const x = Elysia;`, kind: "import", detail: "elysia" },
  { what: "domain imports src/http", file: "src/domain/verbs/p-http.ts", code: `import { x } from "../../http/clean.ts";\nexport const y = x;`, kind: "import", detail: "src/http" },
  { what: "domain imports an adapter as a value", file: "src/domain/verbs/p-adapter.ts", code: `import { client } from "../../adapters/clean.ts";\nexport const y = client;`, kind: "value import of a type-only tier" },
  { what: "domain imports node:*", file: "src/domain/verbs/p-node.ts", code: `import { join } from "node:path";\nexport const x = join;`, kind: "import", detail: "node:path" },
  { what: "domain imports bun:*", file: "src/domain/verbs/p-bun.ts", code: `import { Database } from "bun:sqlite";\nexport const x = Database;`, kind: "import", detail: "bun:sqlite" },
  { what: "domain reads process.env", file: "src/domain/verbs/p-env.ts", code: `export const x = process.env.KITH_X;`, kind: "process" },
  { what: "domain calls new Date()", file: "src/domain/verbs/p-new-date.ts", code: `export const x = new Date().toISOString();`, kind: "clock" },
  { what: "domain calls Date.now()", file: "src/domain/verbs/p-date-now.ts", code: `export const x = Date.now();`, kind: "clock" },
  { what: "domain uses Math.random", file: "src/domain/verbs/p-random.ts", code: `export const x = Math.random();`, kind: "randomness" },
  { what: "domain reads globalThis[", file: "src/domain/verbs/p-global.ts", code: `export const x = globalThis["Bun"];`, kind: "globals" },
  { what: "http imports drizzle", file: "src/http/p-drizzle.ts", code: `import { eq } from "drizzle-orm";\nexport const x = eq;`, kind: "import", detail: "drizzle-orm" },
  { what: "http imports src/db", file: "src/http/p-db.ts", code: `import { db } from "../db/client.ts";\nexport const x = db;`, kind: "import", detail: "src/db" },
  { what: "http imports src/adapters", file: "src/http/p-adapter.ts", code: `import { client } from "../adapters/clean.ts";\nexport const x = client;`, kind: "import", detail: "src/adapters" },
  { what: "http imports a domain internal/ helper", file: "src/http/p-internal.ts", code: `import { helper } from "../domain/verbs/internal/helper.ts";\nexport const x = helper;`, kind: "internal" },
  { what: "jobs import src/http", file: "src/jobs/p-http.ts", code: `import { x } from "../http/clean.ts";\nexport const y = x;`, kind: "import", detail: "src/http" },
  { what: "jobs import src/db", file: "src/jobs/p-db.ts", code: `import { db } from "../db/client.ts";\nexport const x = db;`, kind: "import", detail: "src/db" },
  { what: "jobs import a domain internal/ helper", file: "src/jobs/p-internal.ts", code: `import { helper } from "../domain/verbs/internal/helper.ts";\nexport const x = helper;`, kind: "internal" },
  { what: "the console imports a server tier", file: "src/console/p-domain.ts", code: `import { x } from "../domain/verbs/do-it.ts";\nexport const y = x;`, kind: "import", detail: "src/domain" },
  { what: "require( of a forbidden package", file: "src/domain/verbs/p-require.ts", code: `const { Elysia } = require("elysia");\nexport const x = Elysia;`, kind: "import", detail: "require( elysia" },
  { what: "dynamic import( of a forbidden tier", file: "src/http/p-dynamic.ts", code: `export const load = () => import("../db/client.ts");`, kind: "import", detail: "import( ../db/client.ts" },
  { what: "export … from a forbidden tier", file: "src/http/p-reexport.ts", code: `export { db } from "../db/client.ts";`, kind: "import", detail: "export … from ../db/client.ts" },
  { what: "import( of a computed name", file: "src/domain/verbs/p-computed.ts", code: `export const load = (name: string) => import(name);`, kind: "unreadable import" },
  { what: "a file in a folder with no row", file: "src/misc/p-stray.ts", code: `export const x = 1;`, kind: "no row" },
  { what: "a file at the top of src/ with no row", file: "src/p-stray.ts", code: `export const x = 1;`, kind: "no row" },
  { what: "another capability's internal/ helper", file: "src/domain/other/p-internal.ts", code: `import { helper } from "../verbs/internal/helper.ts";\nexport const x = helper;`, kind: "internal" },
  { what: "a domain file exporting two functions", file: "src/domain/verbs/p-two-verbs.ts", code: `export function pTwoVerbs(): number {\n  return 1;\n}\nexport const helper = (): number => 2;`, kind: "verb file" },
  { what: "a verb file named unlike its verb", file: "src/domain/verbs/p-misnamed.ts", code: `export function somethingElse(): number {\n  return 1;\n}`, kind: "verb file" },
  { what: "a function at the domain root", file: "src/domain/p-root.ts", code: `export function helper(): number {\n  return 1;\n}`, kind: "verb file" },
  { what: "a file cycle", file: "src/http/p-cycle-a.ts", code: `import { b } from "./p-cycle-b.ts";\nexport const a = () => b;`, kind: "file cycle" },
  { what: "a domain folder cycle", file: "src/domain/cycle-a", code: "", kind: "folder cycle" },
];

/** Allowed imports of every kind: none of these may raise anything. */
const CLEAN: Array<{ file: string; code: string }> = [
  { file: "src/ink/clean.ts", code: `import * as v from "valibot";\nimport { sha256 } from "@noble/hashes/sha2.js";\nimport { base58btc } from "multiformats/bases/base58";\nexport const x = [v, sha256, base58btc, new Date(0)];` },
  { file: "src/security/clean.ts", code: `import { createHash } from "node:crypto";\nimport { SignJWT } from "jose";\nimport { x } from "../ink/clean.ts";\nexport const y = [createHash, SignJWT, x];` },
  { file: "src/adapters/clean.ts", code: `import { readFileSync } from "node:fs";\nimport { OAuth2Client } from "arctic";\nimport { y } from "../security/clean.ts";\nexport const client = [readFileSync, OAuth2Client, y, fetch];` },
  { file: "src/db/clean.ts", code: `import { Database } from "bun:sqlite";\nimport { eq } from "drizzle-orm";\nexport const db = [Database, eq];` },
  { file: "src/db/client.ts", code: `export const db = 1;` },
  { file: "src/domain/context.ts", code: `import type { client } from "../adapters/clean.ts";\nexport interface Ctx {\n  client: typeof client;\n}\nexport const LIMIT = 3;` },
  {
    file: "src/domain/verbs/do-it.ts",
    code: `import { eq } from "drizzle-orm";\nimport * as v from "valibot";\nimport type { client } from "../../adapters/clean.ts";\nimport { db } from "../../db/clean.ts";\nimport { y } from "../../security/clean.ts";\nimport { helper } from "./internal/helper.ts";\nimport { shared } from "../internal/shared.ts";\nexport const Input = v.object({});\nexport function doIt(c: typeof client): unknown {\n  return [eq, db, y, helper, shared, c, new Date(5)];\n}\nexport const x = 1;`,
  },
  { file: "src/domain/verbs/internal/helper.ts", code: `export const helper = () => 1;\nexport function another(): number {\n  return 2;\n}` },
  { file: "src/domain/internal/shared.ts", code: `export const shared = () => 1;\nexport function more(): number {\n  return 2;\n}` },
  { file: "src/domain/other/use-shared.ts", code: `import { shared } from "../internal/shared.ts";\nimport { doIt } from "../verbs/do-it.ts";\nexport async function useShared(): Promise<unknown> {\n  return [shared, doIt, await import("./internal/lazy.ts")];\n}` },
  { file: "src/domain/other/internal/lazy.ts", code: `export const lazy = 1;` },
  { file: "src/http/clean.ts", code: `import { Elysia } from "elysia";\nimport * as v from "valibot";\nimport { doIt } from "../domain/verbs/do-it.ts";\nimport type { Ctx } from "../domain/context.ts";\nimport { y } from "../security/clean.ts";\nexport const x = [Elysia, v, doIt, y, {} as Ctx];` },
  { file: "src/jobs/clean.ts", code: `import { doIt } from "../domain/verbs/do-it.ts";\nexport const x = doIt;` },
  { file: "src/console/clean.tsx", code: `import { h } from "preact";\nimport { useState } from "preact/hooks";\nexport const App = () => <div>{String(useState)}{String(h)}</div>;` },
  { file: "src/main.ts", code: `import { readFileSync } from "node:fs";\nimport { db } from "./db/clean.ts";\nimport { helper } from "./domain/verbs/internal/helper.ts";\nexport const x = [readFileSync, db, helper, Date.now(), process.env.KITH_X, require("elysia")];` },
];

/** Files a planted violation needs besides itself. */
const SUPPORT: Array<{ file: string; code: string }> = [
  { file: "src/http/p-cycle-b.ts", code: `import { a } from "./p-cycle-a.ts";\nexport const b = () => a;` },
  { file: "src/domain/cycle-a/one.ts", code: `import { two } from "../cycle-b/two.ts";\nexport function one(): unknown {\n  return two;\n}` },
  { file: "src/domain/cycle-b/three.ts", code: `import { four } from "../cycle-a/four.ts";\nexport function three(): unknown {\n  return four;\n}` },
  { file: "src/domain/cycle-a/four.ts", code: `export const four = 4;` },
  { file: "src/domain/cycle-b/two.ts", code: `export const two = 2;` },
];

let planted: string | null = null;
afterAll(() => {
  if (planted) rmSync(planted, { recursive: true, force: true });
});

function plantTree(): string {
  planted = mkdtempSync(join(tmpdir(), "kith-arch-"));
  for (const f of [...CLEAN, ...SUPPORT, ...PLANTED.filter((p) => p.code !== "")]) {
    mkdirSync(join(planted, dirname(f.file)), { recursive: true });
    writeFileSync(join(planted, f.file), `${f.code}\n`);
  }
  return planted;
}
