import { afterAll, expect, setDefaultTimeout, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { freePort } from "../helpers/network-process.ts";
import { runKith, startKith, type RunningNode } from "../helpers/process.ts";
import { TLS_CA_FILE, TLS_CERT_FILE, TLS_KEY_FILE, testCa } from "../helpers/tls.ts";

// Spawns kith processes: a longer per-test timeout than the suite's 5 s.
setDefaultTimeout(60_000);

const work = mkdtempSync(join(tmpdir(), "kith-doctor-proc-"));
const running: RunningNode[] = [];
afterAll(async () => {
  await Promise.all(running.map((n) => n.stop("SIGKILL")));
  rmSync(work, { recursive: true, force: true });
});

test("kith doctor beside a running TLS node: every check passes (its card fetched as a peer would), exit 0; the node is not disturbed; stopped, the node is named and the card fails, exit 1", async () => {
  const env = { KITH_TLS_CERT_FILE: TLS_CERT_FILE, KITH_TLS_KEY_FILE: TLS_KEY_FILE, KITH_TLS_CA_FILE: TLS_CA_FILE, KITH_ALLOW_PRIVATE_PEERS: "1" };
  const port = freePort();
  const dir = join(work, "alice");
  expect((await runKith(["init", "--data-dir", dir, "--handle", "alice", "--public-url", `https://localhost:${port}`], { env })).code).toBe(0);
  const node = await startKith(["--data-dir", dir, "--port", String(port)], { env, ca: testCa() });
  running.push(node);

  const beside = await runKith(["doctor", "--data-dir", dir, "--json"], { env });
  const report = JSON.parse(beside.stdout) as { ok: boolean; running: boolean; checks: Array<{ name: string; status: string; message: string }> };
  const notOk = report.checks.filter((c) => c.status !== "ok" && c.status !== "skip");
  expect(notOk).toEqual([]);
  expect(beside.code).toBe(0);
  expect(report.running).toBe(true);
  expect(report.checks.find((c) => c.name === "card")?.message).toContain("signed card");
  expect(report.checks.map((c) => c.name)).toEqual(expect.arrayContaining(["node", "key-file", "disk", "database", "wal", "schema", "public-url", "card", "tls", "clock", "outbox"]));
  // the node still serves, and its lock is still its own (a second serve is refused)
  expect((await fetch(`https://localhost:${port}/health`, { tls: { ca: testCa() } } as RequestInit)).status).toBe(200);
  const second = await runKith(["serve", "--data-dir", dir, "--port", "0"], { env });
  expect(second.code).toBe(1);
  expect(second.stderr).toContain("already running");

  expect(await node.stop()).toBe(0);
  const after = await runKith(["doctor", "--data-dir", dir], { env });
  expect(after.code).toBe(1);
  expect(after.stdout).toMatch(/WARN\s+node\s+no kith serve is running/);
  expect(after.stdout).toMatch(/FAIL\s+card\s+/);
  expect(after.stdout).toMatch(/OK\s+database\s+/);
});
