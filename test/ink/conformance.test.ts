// Conformance runner: every case of every upstream vector file, one test per case, asserting
// `expect.result` and every other `expect` member present. Signature-based categories run under
// both the default noble strict verifier and the native strict verifier; a case counts once in
// the total and passes only if it passes under both.
import { afterAll, describe, expect, test } from "bun:test";
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { type Ed25519Verifier, nobleStrictVerifier } from "../../src/ink/index.ts";
import { nativeStrictVerifier } from "../../src/security/ed25519-native.ts";
import { FIXTURES, loadVectorFiles, type VectorCase } from "./conformance/fixtures.ts";
import { HANDLERS, REQUIRED_CATEGORIES, SIGNATURE_CATEGORIES } from "./conformance/handlers.ts";
import { testVectorChecks } from "./conformance/test-vector-checks.ts";

const BACKENDS: [string, Ed25519Verifier][] = [
  ["noble", nobleStrictVerifier],
  ["native", nativeStrictVerifier],
];

type Tally = { passed: number; failed: number };
const tallies = new Map<string, Tally>();
// Per case: which backends failed (a case passes only when every backend it ran under passed).
const caseFailures = new Map<string, Set<string>>();
const caseCategory = new Map<string, string>();

function record(category: string, caseKey: string, backend: string, ok: boolean): void {
  caseCategory.set(caseKey, category);
  const failures = caseFailures.get(caseKey) ?? new Set<string>();
  if (!ok) failures.add(backend);
  caseFailures.set(caseKey, failures);
}

function runCase(category: string, c: VectorCase, backend: string, verifier: Ed25519Verifier): void {
  const key = `${category}/${c.caseId}`;
  let ok = false;
  try {
    const handler = HANDLERS[category];
    if (handler === undefined) throw new Error(`no handler for ${category}`);
    const got = handler(c.input, verifier);
    expect({ caseId: c.caseId, result: got.result, why: got.result === c.expect.result ? undefined : got }).toEqual({
      caseId: c.caseId,
      result: c.expect.result,
      why: undefined,
    });
    for (const [member, want] of Object.entries(c.expect)) {
      if (member !== "result") expect({ member, value: got[member] }).toEqual({ member, value: want });
    }
    ok = true;
  } finally {
    record(category, key, backend, ok);
  }
}

describe("fixtures are the unmodified upstream files", () => {
  const rows = readFileSync(join(FIXTURES, "SOURCES.tsv"), "utf8").trim().split("\n").slice(1);
  for (const row of rows) {
    const [path, , , bytes, sha] = row.split("\t");
    test(path as string, () => {
      const data = readFileSync(join(FIXTURES, path as string));
      expect(data.length).toBe(Number(bytes));
      expect(createHash("sha256").update(data).digest("hex")).toBe(sha as string);
    });
  }
});

for (const file of loadVectorFiles()) {
  const category = file.category;
  if (HANDLERS[category] === undefined) {
    // Every vector file has a handler: a new upstream category fails loudly instead of being skipped.
    test(`conformance ${category} has a handler`, () => expect({ category, handler: false }).toEqual({ category, handler: true }));
    tallies.set(category, { passed: 0, failed: file.cases.length });
    continue;
  }
  describe(`conformance ${category}`, () => {
    const backends = SIGNATURE_CATEGORIES.has(category) ? BACKENDS : BACKENDS.slice(0, 1);
    for (const c of file.cases) {
      for (const [name, verifier] of backends) {
        const label = backends.length > 1 ? `${category}/${c.caseId} [${name}]` : `${category}/${c.caseId}`;
        test(label, () => runCase(category, c, name, verifier));
      }
    }
  });
}

describe("test-vectors", () => {
  for (const check of testVectorChecks()) {
    const backends = check.signatures ? BACKENDS : BACKENDS.slice(0, 1);
    for (const [name, verifier] of backends) {
      const label = backends.length > 1 ? `test-vectors/${check.file}: ${check.name} [${name}]` : `test-vectors/${check.file}: ${check.name}`;
      test(label, () => {
        let ok = false;
        try {
          check.run(verifier);
          ok = true;
        } finally {
          record(`test-vectors/${check.file}`, `test-vectors/${check.file}/${check.name}`, name, ok);
        }
      });
    }
  }
});

afterAll(() => {
  for (const [key, failures] of caseFailures) {
    const category = caseCategory.get(key) as string;
    const t = tallies.get(category) ?? { passed: 0, failed: 0 };
    if (failures.size === 0) t.passed++;
    else t.failed++;
    tallies.set(category, t);
  }
  let passed = 0;
  let failed = 0;
  const lines: string[] = [];
  for (const [category, t] of [...tallies].sort(([a], [b]) => a.localeCompare(b))) {
    const required = REQUIRED_CATEGORIES.has(category) || category.startsWith("test-vectors/") ? "" : " (optional profile)";
    const both = SIGNATURE_CATEGORIES.has(category) ? " [each case under noble and native verifiers]" : "";
    lines.push(`conformance ${category}: ${t.passed} passed, ${t.failed} failed${required}${both}`);
    passed += t.passed;
    failed += t.failed;
  }
  lines.push(`conformance: ${passed} passed, ${failed} failed`);
  console.log(lines.join("\n"));
});
