import { join } from "node:path";
import { json, runKith, startKith, type RunningNode } from "./process.ts";
import { TLS_CA_FILE, TLS_CERT_FILE, TLS_KEY_FILE, testCa } from "./tls.ts";

/** A port nobody listens on right now (bind to 0, read it, close). */
export function freePort(): number {
  const s = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: () => new Response() });
  const port = s.port!;
  s.stop(true);
  return port;
}

/** Settings for a node that serves HTTPS with the test certificate and trusts the test CA for peers. */
export function tlsEnv(extra: Record<string, string> = {}): Record<string, string> {
  return { KITH_TLS_CERT_FILE: TLS_CERT_FILE, KITH_TLS_KEY_FILE: TLS_KEY_FILE, KITH_TLS_CA_FILE: TLS_CA_FILE, KITH_ALLOW_PRIVATE_PEERS: "1", ...extra };
}

/** fetch that trusts the test CA (nodes under test serve the test certificate). */
export function tfetch(url: string, init: RequestInit = {}): Promise<Response> {
  return fetch(url, { ...init, tls: { ca: testCa() } } as RequestInit);
}

export interface ProcessNode {
  name: string;
  dir: string;
  port: number;
  base: string;
  agentId: string;
  cardUrl: string;
  email: string;
  running: RunningNode | null;
  token: string | null;
}

/** `kith init` a node that will live at https://localhost:<port>. */
export async function initProcessNode(work: string, name: string, env: Record<string, string> = {}): Promise<ProcessNode> {
  const port = freePort();
  const dir = join(work, name);
  const base = `https://localhost:${port}`;
  const email = `${name}@example.com`;
  const r = await runKith(["init", "--data-dir", dir, "--handle", name, "--display-name", name[0]!.toUpperCase() + name.slice(1), "--public-url", base, "--owner-email", email], { env });
  if (r.code !== 0) throw new Error(`init ${name}: ${r.stderr}`);
  const agentId = r.stdout.match(/agent id:\s+(\S+)/)![1]!;
  return { name, dir, port, base, agentId, cardUrl: `${base}/ink/v1/${encodeURIComponent(agentId)}/agent.json`, email, running: null, token: null };
}

export async function startProcessNode(node: ProcessNode, env: Record<string, string> = {}): Promise<void> {
  node.running = await startKith(["--data-dir", node.dir, "--port", String(node.port)], { env: tlsEnv(env) });
}

/** Signs the owner in: `kith owner code` (works while the node runs), then POST /auth/email/verify. */
export async function signIn(node: ProcessNode): Promise<string> {
  const r = await runKith(["owner", "code", "--data-dir", node.dir]);
  const code = r.stdout.trim().split("\n").at(-1)!;
  const res = await tfetch(`${node.base}/auth/email/verify`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ email: node.email, code }) });
  if (res.status !== 200) throw new Error(`sign-in ${node.name}: ${res.status} ${await res.text()}`);
  node.token = (await json(res)).accessToken;
  return node.token!;
}

/** The owner API of a process node. */
export async function api(node: ProcessNode, path: string, body?: unknown, method?: string): Promise<{ status: number; body: any }> {
  const res = await tfetch(`${node.base}/api/svc${path}`, {
    method: method ?? (body === undefined ? "GET" : "POST"),
    headers: { authorization: `Bearer ${node.token}`, ...(body === undefined ? {} : { "content-type": "application/json" }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: res.status, body: res.headers.get("content-type")?.includes("json") ? await json(res) : await res.text() };
}

/** Polls until `check` returns a value (not undefined/false), or fails after `ms`. */
export async function waitFor<T>(what: string, check: () => Promise<T | undefined | false> | T | undefined | false, ms = 20_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = await check();
    if (v !== undefined && v !== false) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await Bun.sleep(50);
  }
}

/**
 * Two started, signed-in process nodes `alice` and `bob` under `work`, connected (Bob's owner
 * accepts), with Bob in Alice's inner circle; `contact` is Alice's connection to Bob.
 */
export async function innerCirclePair(work: string, nodes: ProcessNode[]): Promise<{ alice: ProcessNode; bob: ProcessNode; contact: { id: string } & Record<string, unknown> }> {
  const alice = await initProcessNode(work, "alice");
  const bob = await initProcessNode(work, "bob");
  nodes.push(alice, bob);
  await Promise.all([startProcessNode(alice), startProcessNode(bob)]);
  await Promise.all([signIn(alice), signIn(bob)]);
  const added = await api(alice, "/connections", { cardUrl: bob.cardUrl, context: "Met at the meetup" });
  if (added.status !== 202) throw new Error(`connect answered ${added.status}`);
  const pending = await waitFor("Bob's pending request", async () => (await api(bob, "/pending")).body.items[0]);
  if ((await api(bob, `/pending/${pending.id}`, { decision: "approve" })).status !== 200) throw new Error("Bob could not accept");
  const contact = await waitFor("Alice sees Bob connected", async () => (await api(alice, "/connections?status=connected")).body.items[0]);
  if ((await api(alice, `/connections/${contact.id}`, { layer: "inner" }, "PATCH")).status !== 200) throw new Error("could not set the layer");
  return { alice, bob, contact };
}
