// The SDK must work in Node 20+ as well as Bun (issue 16): bundle the shared cases with the SDK
// source for Node and run them with the `node` on PATH. Every case must print "ok".
import { afterAll, expect, setDefaultTimeout, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { cases } from "./cases.ts";

setDefaultTimeout(60_000);
const dir = mkdtempSync(join(tmpdir(), "kith-sdk-node-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const node = Bun.which("node");

test.skipIf(node === null)("the SDK's cases pass under Node 20+", async () => {
  const version = Bun.spawnSync([node as string, "--version"]).stdout.toString().trim();
  expect(Number(/^v(\d+)/.exec(version)?.[1] ?? 0)).toBeGreaterThanOrEqual(20);
  const built = await Bun.build({ entrypoints: [join(import.meta.dir, "node-runner.ts")], target: "node", format: "esm", outdir: dir, naming: "runner.mjs" });
  expect(built.success).toBe(true);
  const proc = Bun.spawn([node as string, join(dir, "runner.mjs")], { stdout: "pipe", stderr: "pipe" });
  const [out, err, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  const lines = out.split("\n");
  const notOk = lines.filter((l) => l.startsWith("not ok"));
  expect({ notOk, err: code === 0 ? "" : err }).toEqual({ notOk: [], err: "" });
  expect(lines.filter((l) => l.startsWith("ok ")).map((l) => l.slice(3))).toEqual(cases.map(([name]) => name));
  expect(lines.some((l) => l.startsWith(`runtime node ${version}`))).toBe(true);
  expect(code).toBe(0);
});
if (node === null) console.warn("node.process.test.ts: no `node` on PATH; the Node 20 run of the SDK cases is skipped");
