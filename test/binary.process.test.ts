import { afterAll, beforeAll, expect, setDefaultTimeout, test } from "bun:test";
import { chmodSync, chownSync, copyFileSync, mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { buildSignedEnvelope, encodeEd25519PublicKey, formatTimestamp, generateEd25519KeyPair, prepareOutbound, validateAgentCard, type EnvelopeDraft } from "../src/ink/index.ts";
import { buildBinary } from "../scripts/build.ts";
import { closeDatabase, openDatabase } from "../src/db/client.ts";
import { json, runKith, startKith } from "./helpers/process.ts";
import { plantedNetwork, writeNetwork } from "./helpers/network-fixture.ts";
import { api, initProcessNode, signIn, tfetch, tlsEnv } from "./helpers/network-process.ts";
import { FULL_GRANT, acmeKey, acmeManifest, manifestHash, signExtensionRequest } from "./helpers/extensions.ts";
import { verifyAuditEventChain } from "../src/ink/audit.ts";

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
    // the banner's sign-in command is this binary as it was run (a checkout says npm run kith --)
    expect(node.stderr()).toContain(`run \`${bin} owner code --data-dir ${join(work, "data")} --email you@example.com\``);
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
    // the INK signature plugin runs in the minified build: the intent route answers INK's errors
    const intent = (body: string, type = "application/json") => fetch(card.endpoint.replace("https://kith.example.net", node.url), { method: "POST", headers: { "content-type": type }, body });
    const broken = await intent("{");
    expect(broken.status).toBe(400);
    expect(await json(broken)).toMatchObject({ error: "invalid_json", protocol: "ink/0.1" });
    const unsigned = await intent(JSON.stringify({ protocol: "ink/0.1" }));
    expect(unsigned.status).toBe(400);
    expect(await json(unsigned)).toMatchObject({ error: "invalid_envelope", protocol: "ink/0.1" });
    expect((await intent("{}", "text/plain")).status).toBe(415);
  } finally {
    expect(await node.stop()).toBe(0);
  }
});

test("the compiled binary loads prom-client on demand: /metrics with KITH_METRICS_TOKEN, and kith doctor beside it", async () => {
  const token = "m".repeat(40);
  const data = join(work, "metrics");
  const node = await startKith(["--data-dir", data], { bin: [bin], cwd: join(work, "cwd"), env: { KITH_METRICS_TOKEN: token } });
  try {
    expect((await fetch(`${node.url}/metrics`)).status).toBe(401);
    const res = await fetch(`${node.url}/metrics`, { headers: { authorization: `Bearer ${token}` } });
    expect(res.status).toBe(200);
    const text = await res.text();
    expect(text).toContain('kith_http_requests_total{method="GET",route="/metrics",status="401"} 1');
    expect(text).toContain("nodejs_eventloop_lag_seconds");
    const doctor = await runKith(["doctor", "--data-dir", data, "--json"], { bin: [bin] });
    expect(JSON.parse(doctor.stdout)).toMatchObject({ running: true });
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

test("the compiled binary signs the owner in with a CLI code and loads the LinkedIn parser it imports on demand", async () => {
  const data = join(work, "data3");
  const cwd = join(work, "cwd");
  expect((await runKith(["init", "--data-dir", data, "--handle", "owner", "--public-url", "https://owner.example", "--owner-email", "owner@example.com"], { bin: [bin], cwd })).code).toBe(0);
  const node = await startKith(["--data-dir", data], { bin: [bin], cwd });
  try {
    const issued = await runKith(["owner", "code", "--data-dir", data], { bin: [bin], cwd });
    expect(issued.code).toBe(0);
    const code = issued.stdout.trim().split("\n").at(-1)!.trim();
    const post = (path: string, body: unknown, token?: string) =>
      fetch(`${node.url}${path}`, { method: "POST", headers: { "content-type": "application/json", ...(token ? { authorization: `Bearer ${token}` } : {}) }, body: JSON.stringify(body) });
    const signedIn = await post("/auth/email/verify", { email: "owner@example.com", code });
    expect(signedIn.status).toBe(200);
    const { accessToken } = await json(signedIn);
    const csv = "First Name,Last Name,URL,Email Address,Company,Position,Connected On\nAda,L,https://www.linkedin.com/in/ada,,,,\n";
    const imported = await post("/api/svc/import/linkedin", { csv }, accessToken);
    expect(imported.status).toBe(200);
    expect(await json(imported)).toMatchObject({ created: 1, total: 1, skipped: [] });
  } finally {
    expect(await node.stop()).toBe(0);
  }
});

test("the compiled binary runs the network analytics Worker from inside itself (a second entrypoint)", async () => {
  const data = join(work, "data-network");
  const cwd = join(work, "cwd");
  expect((await runKith(["init", "--data-dir", data, "--handle", "graph", "--public-url", "https://graph.example", "--owner-email", "owner@example.com"], { bin: [bin], cwd })).code).toBe(0);
  const db = openDatabase(join(data, "kith.db"));
  writeNetwork(db, plantedNetwork().net, Date.now());
  closeDatabase(db);
  const node = await startKith(["--data-dir", data], { bin: [bin], cwd });
  try {
    const code = (await runKith(["owner", "code", "--data-dir", data], { bin: [bin], cwd })).stdout.trim().split("\n").at(-1)!.trim();
    const signedIn = await fetch(`${node.url}/auth/email/verify`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ email: "owner@example.com", code }) });
    const { accessToken } = await json(signedIn);
    const res = await fetch(`${node.url}/api/svc/network/clusters`, { headers: { authorization: `Bearer ${accessToken}` } });
    expect(res.status).toBe(200);
    const body = await json(res);
    expect(body.clusters).toHaveLength(6);
    expect(body.stale).toBe(false);
  } finally {
    expect(await node.stop()).toBe(0);
  }
});

test("the compiled binary serves the owner console and every file it references, embedded (nothing beside the binary)", async () => {
  const node = await startKith(["--data-dir", join(work, "data4")], { bin: [bin], cwd: join(work, "cwd") });
  try {
    const page = await fetch(`${node.url}/console`);
    expect(page.status).toBe(200);
    expect(page.headers.get("content-security-policy")).toStartWith("default-src 'self';");
    const html = await page.text();
    expect(html).toContain('<meta name="kith-runtime" content="binary">');
    const assets = [...html.matchAll(/(?:src|href)="(\/[^"]+)"/g)].map((m) => m[1]!);
    expect(assets.some((a) => a.endsWith(".js"))).toBe(true);
    expect(assets.some((a) => a.endsWith(".css"))).toBe(true);
    for (const path of assets) {
      expect(path).toStartWith("/console/assets/");
      const res = await fetch(`${node.url}${path}`);
      expect({ path, status: res.status }).toEqual({ path, status: 200 });
      expect((await res.arrayBuffer()).byteLength).toBeGreaterThan(100);
    }
    expect((await fetch(`${node.url}/`, { headers: { accept: "text/html" }, redirect: "manual" })).headers.get("location")).toBe("/console");
  } finally {
    expect(await node.stop()).toBe(0);
  }
});

test("the compiled binary verifies signed intents on its crypto worker: a valid one passes, a forged one is refused, no worker failed", async () => {
  const node = await startKith(["--data-dir", join(work, "data-pool"), "--public-url", "https://kith.example.net"], { bin: [bin], cwd: join(work, "cwd"), env: { KITH_VERIFY_WORKERS: "1" } });
  try {
    const card = await json(await fetch(`${node.url}/.well-known/ink/agent.json`));
    const sender = generateEd25519KeyPair(new Uint8Array(32).fill(42));
    const send = async (n: number, forge: boolean) => {
      const now = formatTimestamp(Date.now());
      const from = `svc:${encodeEd25519PublicKey(sender.publicKey)}`;
      const draft = { protocol: "ink/0.1", id: `pool-${n}`, correlationId: `pool-thread-${n}`, createdAt: now, from, to: card.agentId, intent: "connection_request", payload: { method: "discovery", context: "hello", profileSnapshot: { headline: "Pool", skills: [], interests: [], openTo: [] } }, timestamp: now, nonce: `poolnonce${n}x${Date.now()}` };
      const built = buildSignedEnvelope(draft as EnvelopeDraft, sender.secretKey, "svc");
      if (!built.ok) throw new Error(built.reason);
      const req = prepareOutbound({ envelope: built.envelope, recipient: { agentId: card.agentId, endpoint: card.endpoint }, secretKey: sender.secretKey, keyId: null, wordmark: "svc" });
      if (!req.ok) throw new Error(req.reason);
      const authorization = forge ? req.authorization.replace(/INK-Ed25519 (.)/, (_, c: string) => `INK-Ed25519 ${c === "A" ? "B" : "A"}`) : req.authorization;
      const res = await fetch(card.endpoint.replace("https://kith.example.net", node.url), { method: "POST", headers: { "content-type": "application/json", authorization }, body: req.bodyText });
      return { status: res.status, body: await json(res) };
    };
    const valid = await Promise.all([1, 2, 3].map((n) => send(n, false)));
    for (const r of valid) expect(r).toEqual({ status: 202, body: expect.anything() });
    const forged = await send(4, true);
    expect(forged.status).toBe(401);
    expect(forged.body.error).toMatch(/signature/);
  } finally {
    expect(await node.stop()).toBe(0);
  }
  expect(node.stdout() + node.stderr()).not.toContain("worker failed");
});

test("the compiled binary batches extension requests' verifies and audit signatures on its crypto worker: 200s, a forged 401, a verifiable chain, no worker failed", async () => {
  const node = await initProcessNode(work, "ext-batch");
  node.running = await startKith(["--data-dir", node.dir, "--port", String(node.port)], { bin: [bin], cwd: join(work, "cwd"), env: tlsEnv({ KITH_VERIFY_WORKERS: "1" }) });
  try {
    await signIn(node);
    const manifest = acmeManifest();
    const installed = await api(node, "/extensions/install", { source: "inline", manifest, manifestHash: manifestHash(manifest), grant: FULL_GRANT });
    expect(installed.status).toBe(201);
    const token = installed.body.delegationToken as string;
    const call = async (target: string, forge = false) => {
      const headers = signExtensionRequest("GET", target, "", forge ? { secretKey: acmeKey(1).secretKey } : {});
      const res = await tfetch(`${node.base}${target}`, { headers: { ...headers, authorization: `Bearer ${token}` } });
      return { status: res.status, body: await json(res) };
    };
    const answers = await Promise.all(Array.from({ length: 12 }, () => call("/ext/v1/identity")));
    for (const a of answers) expect(a.status).toBe(200);
    const forged = await call("/ext/v1/identity", true);
    expect([forged.status, forged.body.error]).toEqual([401, "signature_invalid"]);
    const audit = await call("/ext/v1/audit?limit=200");
    expect(audit.status).toBe(200);
    expect(verifyAuditEventChain(audit.body.events)).toMatchObject({ ok: true });
    expect(audit.body.events.filter((e: { eventType: string }) => e.eventType === "delegation.used").length).toBeGreaterThanOrEqual(12);
  } finally {
    expect(await node.running.stop()).toBe(0);
  }
  expect(node.running.stdout() + node.running.stderr()).not.toContain("worker failed");
});

// The Containerfile runs the binary as uid 10001 with /data (owned by it, 0700) as the data
// directory: the same binary, dropped to that uid here, makes and checks a node there.
test.skipIf(process.getuid?.() !== 0 || !Bun.which("setpriv"))("the compiled binary runs as the Containerfile's unprivileged user (uid 10001) on a data directory it owns", async () => {
  const root = mkdtempSync(join(tmpdir(), "kith-uid-"));
  try {
    chmodSync(root, 0o755);
    const exe = join(root, "kith");
    copyFileSync(bin, exe);
    chmodSync(exe, 0o755);
    const data = join(root, "data");
    mkdirSync(data, { mode: 0o700 });
    chownSync(data, 10001, 10001);
    const asUser = ["setpriv", "--reuid=10001", "--regid=10001", "--clear-groups", exe];
    const init = await runKith(["init", "--handle", "me", "--public-url", "https://kith.example.net"], { bin: asUser, cwd: root, env: { KITH_DATA_DIR: data } });
    expect({ code: init.code, stderr: init.stderr }).toEqual({ code: 0, stderr: expect.any(String) });
    expect(statSync(join(data, "agent-key.json")).uid).toBe(10001);
    const doctor = await runKith(["doctor", "--json"], { bin: asUser, cwd: root, env: { KITH_DATA_DIR: data } });
    const report = JSON.parse(doctor.stdout) as { checks: Array<{ name: string; status: string }> };
    expect(report.checks.filter((c) => ["data-dir", "key-file", "data-files", "database"].includes(c.name)).map((c) => c.status)).toEqual(["ok", "ok", "ok", "ok"]);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});
