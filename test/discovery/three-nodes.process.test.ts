import { afterAll, expect, setDefaultTimeout, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { json, runKith, startKith, type RunningNode } from "../helpers/process.ts";
import { testCa, testTls, TLS_CA_FILE, TLS_CERT_FILE, TLS_KEY_FILE } from "../helpers/tls.ts";

// Spawns kith processes (or compiles the binary): a longer per-test timeout than the suite's 5 s.
setDefaultTimeout(60_000);

/**
 * The proof of issue 7 with three real `kith serve` processes over TLS on loopback: directory node
 * D; nodes A and B list D in KITH_DIRECTORIES and publish to it through their owner API (the
 * pusher sends signed listing requests, D fetches and indexes their cards); a search on D finds
 * both by skill and by handle prefix; B unpublishes and is gone from D; A's card turns invalid
 * (A stops and its address serves a broken card) and D's re-validation drops A.
 */
const work = mkdtempSync(join(tmpdir(), "kith-three-"));
const running: RunningNode[] = [];
let impostor: ReturnType<typeof Bun.serve> | null = null;
afterAll(async () => {
  await Promise.all(running.map((n) => n.stop()));
  await impostor?.stop(true);
  rmSync(work, { recursive: true, force: true });
});

const tls = { tls: { ca: testCa() } } as RequestInit;
const freePort = () => {
  const s = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: () => new Response() });
  const port = s.port!;
  s.stop(true);
  return port;
};

async function node(handle: string, env: Record<string, string>): Promise<{ run: RunningNode; port: number; url: string; token: string; dir: string }> {
  const port = freePort();
  const dir = join(work, handle);
  const url = `https://localhost:${port}`;
  const init = await runKith(["init", "--data-dir", dir, "--handle", handle, "--display-name", `${handle[0]!.toUpperCase()}${handle.slice(1)} Node`, "--public-url", url, "--owner-email", `${handle}@example.com`]);
  expect(init.code).toBe(0);
  const run = await startKith(["--data-dir", dir, "--port", String(port)], {
    env: { KITH_TLS_CERT_FILE: TLS_CERT_FILE, KITH_TLS_KEY_FILE: TLS_KEY_FILE, KITH_TLS_CA_FILE: TLS_CA_FILE, KITH_ALLOW_PRIVATE_PEERS: "1", KITH_LOG_LEVEL: "warn", ...env },
  });
  running.push(run);
  expect(run.port).toBe(port);
  const code = (await runKith(["owner", "code", "--data-dir", dir])).stdout.trim().split("\n").at(-1)!;
  const signIn = await fetch(`${run.url}/auth/email/verify`, { ...tls, method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ email: `${handle}@example.com`, code }) });
  expect(signIn.status).toBe(200);
  return { run, port, url, dir, token: (await json(signIn)).accessToken };
}

const owner = (n: { run: RunningNode; token: string }, path: string, body?: unknown) =>
  fetch(`${n.run.url}/api/svc${path}`, { ...tls, method: body === undefined ? "GET" : "POST", headers: { authorization: `Bearer ${n.token}`, "content-type": "application/json" }, ...(body !== undefined ? { body: JSON.stringify(body) } : {}) });
const discover = async (d: { run: RunningNode }, query: string) => {
  const res = await fetch(`${d.run.url}/discover?${query}`, tls);
  expect(res.status).toBe(200);
  return ((await json(res)).results as Array<{ handle: string }>).map((r) => r.handle).sort();
};
async function until<T>(what: string, fn: () => Promise<T>, ok: (v: T) => boolean, timeoutMs = 8_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: T = await fn();
  while (!ok(last)) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}: ${JSON.stringify(last)}`);
    await Bun.sleep(100);
    last = await fn();
  }
  return last;
}
const pushState = async (n: { run: RunningNode; token: string }) => (await json(await owner(n, "/discovery"))).directories[0];

test("three processes: A and B publish to directory D, D finds them; B unpublishes; A's card turns invalid and D drops it", async () => {
  const d = await node("directory", { KITH_DIRECTORY_REVALIDATE_SECONDS: "1" });
  const [a, b] = await Promise.all([node("alpha", { KITH_DIRECTORIES: d.url }), node("bravo", { KITH_DIRECTORIES: d.url })]);

  // A and B publish; their pushers deliver signed listing requests to D
  expect((await owner(a, "/discovery/publish", { tags: ["rust", "distributed systems"], location: "Berlin" })).status).toBe(200);
  expect((await owner(b, "/discovery/publish", { tags: ["rust", "design"] })).status).toBe(200);
  for (const n of [a, b]) {
    const state = await until("the push to D", () => pushState(n), (s) => s.state !== "queued" || s.attempts > 2);
    expect(state).toMatchObject({ directory: d.url, action: "publish", state: "delivered", remoteStatus: "listed" });
  }

  // D finds both by skill (descriptor tags count as skills) and each by handle prefix
  expect(await discover(d, "q=rust&skills=rust")).toEqual(["alpha", "bravo"]);
  expect(await discover(d, "q=alp")).toEqual(["alpha"]);
  expect(await discover(d, "q=bra")).toEqual(["bravo"]);
  expect(await discover(d, "q=node&skills=design")).toEqual(["bravo"]);
  expect(await discover(d, "q=rust&location=berlin")).toEqual(["alpha"]);
  const alphaId = (await json(await owner(a, ""))).agentId;
  expect(await json(await fetch(`${d.run.url}/alpha`, tls))).toEqual({ found: true, agentId: alphaId, handle: "alpha" });

  // B unpublishes: the push delists it at D
  expect((await owner(b, "/discovery/unpublish", {})).status).toBe(200);
  await until("B's unpublish at D", () => pushState(b), (s) => s.action === "unpublish" && s.state === "delivered");
  expect((await pushState(b)).remoteStatus).toBe("delisted");
  expect(await discover(d, "q=rust")).toEqual(["alpha"]);

  // A's card becomes invalid: A stops and its address now serves a broken card
  expect(await a.run.stop()).toBe(0);
  impostor = Bun.serve({ port: a.port, hostname: "127.0.0.1", tls: testTls(), fetch: () => Response.json({ protocol: "ink/0.1", agentId: alphaId, handle: "alpha" }) });
  const dropped = await until(
    "D's re-validation to drop A",
    async () => (await json(await owner(d, "/discovery/listings?source=remote"))).items.find((i: { handle: string }) => i.handle === "alpha"),
    (item) => item?.status === "dropped",
  );
  expect(dropped.lastError).toContain("invalid_card");
  expect(await discover(d, "q=rust")).toEqual([]);
  expect(await json(await fetch(`${d.run.url}/alpha`, tls))).toEqual({ found: false, agentId: null, handle: "alpha" });
}, 30_000);
