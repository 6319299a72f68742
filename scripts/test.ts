// Runs the whole suite with `bun test` and ends with one plain totals line for CI:
// "N passed, M failed" (", K skipped" when some were skipped). Extra arguments go to bun test;
// `--fast` leaves out the tests that spawn processes or compile the binary (*.process.test.ts).
// The per-test timeout is 5 s unless a test (or its file, with setDefaultTimeout) says otherwise.
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const dir = mkdtempSync(join(tmpdir(), "kith-junit-"));
const report = join(dir, "junit.xml");
const args = process.argv.slice(2);
const fast = args.includes("--fast");
const extra = args.filter((a) => a !== "--fast");
const options = [
  ...(extra.some((a) => a.startsWith("--timeout")) ? [] : ["--timeout=5000"]),
  ...(fast ? ["--path-ignore-patterns=**/*.process.test.ts"] : []),
];
const proc = Bun.spawn([process.execPath, "test", "--reporter=junit", `--reporter-outfile=${report}`, ...options, ...extra], {
  stdio: ["inherit", "inherit", "inherit"],
  env: { ...process.env, KITH_TEST_RUN: "1" },
});
const code = await proc.exited;

let tests = 0;
let failures = 0;
let errors = 0;
let skipped = 0;
try {
  const xml = readFileSync(report, "utf8");
  const root = xml.match(/<testsuites\b[^>]*>/)?.[0] ?? "";
  const attr = (name: string) => Number(root.match(new RegExp(`\\b${name}="(\\d+)"`))?.[1] ?? 0);
  tests = attr("tests");
  failures = attr("failures");
  errors = attr("errors");
  skipped = attr("skipped");
} catch {
  // no report: bun failed before running anything; counted below
}
rmSync(dir, { recursive: true, force: true });

let failed = failures + errors;
// A file that fails to load, or an unhandled error between tests, makes bun exit non-zero
// without a failing test case; it must still fail the run.
if (code !== 0 && failed === 0) failed = 1;
const passed = Math.max(0, tests - failures - errors - skipped);
console.log(`${passed} passed, ${failed} failed${skipped > 0 ? `, ${skipped} skipped` : ""}`);
process.exit(failed > 0 ? 1 : 0);
