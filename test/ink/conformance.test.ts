// Conformance runner: every case of every upstream vector file, one test per case, asserting
// `expect.result` and every other `expect` member present. Signature-based categories run under
// both the default noble strict verifier and the native strict verifier; a case counts once in
// the total and passes only if it passes under both. Each category line names its INK profile;
// a category of a profile Kith does not implement is named "not implemented", never skipped
// silently, and a file with neither a handler nor such an entry fails.
import { afterAll, describe, expect, test } from "bun:test";
import { createHash } from "node:crypto";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { type Ed25519Signer, type Ed25519Verifier, ed25519Sign, nobleStrictVerifier } from "../../src/ink/index.ts";
import { nativeEd25519Sign, nativeStrictVerifier } from "../../src/security/ed25519-native.ts";
import { FIXTURES, loadVectorFiles, type VectorCase } from "./conformance/fixtures.ts";
import { HANDLERS, SIGNATURE_CATEGORIES } from "./conformance/handlers.ts";
import { NOT_IMPLEMENTED, PROFILE_SUPPORT, profileOf } from "./conformance/profiles.ts";
import { testVectorChecks } from "./conformance/test-vector-checks.ts";

// Each backend verifies and signs: the test-vectors' signing checks sign with its signer.
const BACKENDS: [string, Ed25519Verifier, Ed25519Signer][] = [
  ["noble", nobleStrictVerifier, ed25519Sign],
  ["native", nativeStrictVerifier, nativeEd25519Sign],
];

type Tally = { passed: number; failed: number };
const tallies = new Map<string, Tally>();
/** Categories named "not implemented": their profile and case count, for the summary. */
const notImplemented = new Map<string, { profile: string; cases: number }>();
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
  const profile = profileOf(category) ?? "untagged";
  test(`conformance ${category}: tagged with a profile (${profile}), handled or declared not implemented`, () => {
    // A profile is implemented whole (every category has a handler) or not at all (every category
    // is declared in NOT_IMPLEMENTED); base is always implemented.
    const implemented = PROFILE_SUPPORT[profile] !== undefined;
    expect({ profile, handler: HANDLERS[category] !== undefined, declared: NOT_IMPLEMENTED[category] !== undefined }).toEqual({
      profile: profile === "untagged" ? "a profile tag" : profile,
      handler: implemented,
      declared: !implemented,
    });
  });
  if (HANDLERS[category] === undefined) {
    if (NOT_IMPLEMENTED[category] !== undefined && PROFILE_SUPPORT[profile] === undefined) {
      notImplemented.set(category, { profile, cases: file.cases.length });
      continue;
    }
    // No handler and no declaration: a new upstream category fails loudly instead of being skipped.
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

/**
 * JSON files under the fixtures that are not vectors to run, each with the reason; every other
 * JSON file must be run (a conformance-v1 vector file or a test-vectors file some check reads).
 */
const NOT_VECTORS: Record<string, string> = {
  "conformance-v1/manifest.json": "upstream's index of the vector files (the runner reads the directory)",
  "conformance-v1/schema.json": "JSON Schema of a vector file",
  "conformance-v1/manifest-history/manifest.358e459b.reconstructed.json": "an older manifest, kept for provenance (README)",
  "conformance-v1/manifest-history/manifest.b9b6c8ef.json": "the newest manifest: read for the profile tags, not cases",
  "conformance-v1/vectors-history/payload-encryption.f09687af.json": "an older upstream copy of vectors/payload-encryption.json (same 22 case ids), kept for provenance (README)",
};

test("no vector file under the fixtures is skipped silently: each is run or named with its reason", () => {
  const run = new Set([
    ...loadVectorFiles().map((f) => `conformance-v1/vectors/${f.category}.json`),
    ...testVectorChecks().map((c) => `test-vectors/${c.file}.json`),
  ]);
  const files = readdirSync(FIXTURES, { recursive: true }).map(String).filter((f) => f.endsWith(".json")).sort();
  const unaccounted = files.filter((f) => !run.has(f) && NOT_VECTORS[f] === undefined);
  expect(unaccounted).toEqual([]);
  expect(files).toContain("test-vectors/witness.json");
  expect(Object.keys(NOT_VECTORS).filter((f) => !files.includes(f))).toEqual([]); // no stale entry
});

describe("test-vectors", () => {
  for (const check of testVectorChecks()) {
    const backends = check.signatures ? BACKENDS : BACKENDS.slice(0, 1);
    for (const [name, verifier, sign] of backends) {
      const label = backends.length > 1 ? `test-vectors/${check.file}: ${check.name} [${name}]` : `test-vectors/${check.file}: ${check.name}`;
      test(label, () => {
        let ok = false;
        try {
          check.run(verifier, sign);
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
  const categories = [...new Set([...tallies.keys(), ...notImplemented.keys()])].sort((a, b) => a.localeCompare(b));
  for (const category of categories) {
    const skipped = notImplemented.get(category);
    if (skipped) {
      lines.push(`conformance ${category}: not implemented (${skipped.profile} profile, ${skipped.cases} cases not run; ${NOT_IMPLEMENTED[category]})`);
      continue;
    }
    const t = tallies.get(category) as Tally;
    const profile = category.startsWith("test-vectors/") ? "" : ` (${profileOf(category) ?? "untagged"})`;
    const both = SIGNATURE_CATEGORIES.has(category) ? " [each case under noble and native verifiers]" : "";
    lines.push(`conformance ${category}: ${t.passed} passed, ${t.failed} failed${profile}${both}`);
    passed += t.passed;
    failed += t.failed;
  }
  lines.push(`conformance: ${passed} passed, ${failed} failed`);
  console.log(lines.join("\n"));
});
