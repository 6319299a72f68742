import { afterAll, beforeAll, expect, setDefaultTimeout, test } from "bun:test";
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { validateAgentCard } from "../src/ink/index.ts";
import { buildBinary } from "../scripts/build.ts";
import { json, runKith, startKith } from "./helpers/process.ts";

// Spawns kith processes (or compiles the binary): a longer per-test timeout than the suite's 5 s.
setDefaultTimeout(60_000);

/**
 * The compiled binary, alone in a directory (no node_modules, no migrations folder beside it),
 * run from a working directory holding a hostile .env and bunfig.toml that it must ignore.
 */
const work = mkdtempSync(join(tmpdir(), "kith-bin-"));
let bin: string;

beforeAll(async () => {
  const built = await buildBinary("x64", join(work, "build"));
  mkdirSync(join(work, "bin"));
  bin = join(work, "bin", "kith");
  copyFileSync(built, bin);
  mkdirSync(join(work, "cwd"));
  writeFileSync(join(work, "cwd", ".env"), "KITH_LOG_LEVEL=not-a-level\nKITH_PORT=1\n");
  writeFileSync(join(work, "cwd", "bunfig.toml"), 'preload = ["./does-not-exist.ts"]\n');
}, 120_000);
afterAll(() => rmSync(work, { recursive: true, force: true }));

test("the compiled binary starts on a fresh data directory and serves /health and a valid card", async () => {
  const node = await startKith(["--data-dir", join(work, "data"), "--public-url", "https://kith.example.net"], { bin: [bin], cwd: join(work, "cwd") });
  try {
    const health = await fetch(`${node.url}/health`);
    expect(health.status).toBe(200);
    expect(await json(health)).toMatchObject({ status: "ok", database: "ok", agent: true });
    const card = await json(await fetch(`${node.url}/.well-known/ink/agent.json`));
    expect(validateAgentCard(card).ok).toBe(true);
    expect(card.endpoint).toBe(`https://kith.example.net/ink/v1/${card.agentId}/intent`);
    const byId = await fetch(`${node.url}/ink/v1/${encodeURIComponent(card.agentId)}/agent.json`);
    expect(byId.status).toBe(200);
    expect((await fetch(`${node.url}/.well-known/openapi.json`)).status).toBe(200);
    // the request gate finds its routes in the minified build: hostile bodies get its answers
    const post = (body: string, type = "application/json") => fetch(`${node.url}/auth/email/send`, { method: "POST", headers: { "content-type": type }, body });
    expect(await json(await post(`{"email":${"[".repeat(20_000)}${"]".repeat(20_000)}}`))).toMatchObject({ error: "invalid_input", message: expect.stringContaining("body.email[0]") });
    expect((await post('{"email":"a@b.example"}', "application/octet-stream")).status).toBe(415);
  } finally {
    expect(await node.stop()).toBe(0);
  }
});

test("the compiled binary runs the CLI verbs (init, keys show, version)", async () => {
  const data = join(work, "data2");
  const init = await runKith(["init", "--data-dir", data, "--handle", "bin", "--public-url", "https://bin.example"], { bin: [bin], cwd: join(work, "cwd") });
  expect(init.code).toBe(0);
  const keys = await runKith(["keys", "show", "--data-dir", data], { bin: [bin], cwd: join(work, "cwd") });
  expect(keys.code).toBe(0);
  expect(keys.stdout).toContain("signing");
  expect((await runKith(["version"], { bin: [bin] })).stdout).toMatch(/^kith \d/);
});
