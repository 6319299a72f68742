import { afterEach, describe, expect, test } from "bun:test";
// @ts-expect-error: the parser ships no types; it is used only here, to read our output as Prometheus would
import parsePrometheusTextFormat from "parse-prometheus-text-format";
import { createNodeMetrics } from "../../src/node/metrics.ts";
import { bootTestApp, type TestNode } from "../helpers/boot.ts";
import { extRequest, FULL_GRANT, installAcme, renewToken } from "../helpers/extensions.ts";

// GET /metrics read by a real Prometheus text-format parser (parse-prometheus-text-format), after
// real requests through the app: route templates, INK refusals by reason, refused sign-ins, the
// outbox gauges and the database size, the event-loop lag of prom-client's default collectors.
const TOKEN = "t".repeat(16) + "0123456789abcdef";
type Family = { name: string; type: string; metrics: Array<{ value?: string; labels?: Record<string, string> }> };

const nodes: TestNode[] = [];
afterEach(() => nodes.splice(0).forEach((n) => n.close()));

function boot(withMetrics: boolean) {
  const node = bootTestApp(withMetrics ? { metrics: (db, clock) => { const p = createNodeMetrics(db, clock); return { recorder: p.metrics, endpoint: { token: TOKEN, render: p.render } }; } } : {});
  nodes.push(node);
  return node;
}

async function scrape(node: TestNode): Promise<Family[]> {
  const res = await node.request("/metrics", { headers: { authorization: `Bearer ${TOKEN}` } });
  expect(res.status).toBe(200);
  expect(res.headers.get("content-type")).toBe("text/plain; version=0.0.4; charset=utf-8");
  return parsePrometheusTextFormat(await res.text()) as Family[];
}

function sample(families: Family[], name: string, labels: Record<string, string> = {}): number | undefined {
  const family = families.find((f) => f.name === name);
  const m = family?.metrics.find((x) => Object.entries(labels).every(([k, v]) => x.labels?.[k] === v));
  return m?.value === undefined ? undefined : Number(m.value);
}

describe("GET /metrics", () => {
  test("off unless KITH_METRICS_TOKEN is set: 404 {error, message}", async () => {
    const node = boot(false);
    const res = await node.request("/metrics", { headers: { authorization: `Bearer ${TOKEN}` } });
    expect(res.status).toBe(404);
    expect(await res.json()).toMatchObject({ error: "not_found" });
  });

  test("needs the bearer secret: none, another or a prefix of it is 401 {error, message}", async () => {
    const node = boot(true);
    for (const authorization of [undefined, "Bearer wrong", `Bearer ${TOKEN.slice(0, -1)}`, `Basic ${TOKEN}`]) {
      const res = await node.request("/metrics", authorization ? { headers: { authorization } } : {});
      expect(res.status).toBe(401);
      expect(await res.json()).toMatchObject({ error: "unauthorized" });
    }
  });

  test("a Prometheus parser reads requests by route template and status, INK refusals by reason, refused sign-ins, outbox depth and age, database size, event-loop lag", async () => {
    const node = boot(true);
    const cardPath = `/ink/v1/${encodeURIComponent(node.agentId!)}/agent.json`;
    expect((await node.request(cardPath)).status).toBe(200);
    expect((await node.request(cardPath)).status).toBe(200);
    const refused = await node.request(`/ink/v1/${encodeURIComponent(node.agentId!)}/intent`, { method: "POST", headers: { "content-type": "application/json" }, body: "{not json" });
    const reason = ((await refused.json()) as { error: string }).error;
    expect(refused.status).toBe(400);
    const signIn = await node.request("/auth/email/verify", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ email: "alice@example.com", code: "00000000" }) });
    expect(signIn.status).toBeGreaterThanOrEqual(400);
    node.db.$client.query("INSERT INTO outbox (id, message_id, peer_principal, status, attempts, next_attempt_at, created_at) VALUES ('ob1', 'm1', 'svc:zbob', 'queued', 0, 0, ?)").run(node.clock.now() - 90_000);
    await new Promise((r) => setTimeout(r, 5)); // the after-response hooks of the requests above

    const families = await scrape(node);
    expect(sample(families, "kith_http_requests_total", { method: "GET", route: "/ink/v1/:agentId/agent.json", status: "200" })).toBe(2);
    expect(families.find((f) => f.name === "kith_http_requests_total")!.metrics.some((m) => m.labels?.route?.includes(node.agentId!))).toBe(false);
    expect(sample(families, "kith_ink_intents_total", { outcome: "refused", reason })).toBe(1);
    expect(sample(families, "kith_sign_in_failures_total", { route: "/auth/email/verify" })).toBe(1);
    expect(sample(families, "kith_outbox_depth")).toBe(1);
    expect(sample(families, "kith_outbox_oldest_age_seconds")).toBe(90);
    expect(sample(families, "kith_database_bytes")).toBeGreaterThan(0);
    expect(families.find((f) => f.name === "nodejs_eventloop_lag_seconds")?.type).toBe("GAUGE");
    expect(families.find((f) => f.name === "kith_deliveries_total")?.type).toBe("COUNTER");
  });
});

test("extension API requests are counted by installation, operation (route template) and outcome: ok, or the code the extension got", async () => {
  const node = boot(true);
  const { installationId, token } = await installAcme(node, { grant: { ...FULL_GRANT, permissions: FULL_GRANT.permissions.filter((p) => p !== "profile:read") } });
  expect((await extRequest(node, token, "GET", "/ext/v1/identity")).status).toBe(200);
  const nonce = crypto.randomUUID();
  expect((await extRequest(node, token, "GET", "/ext/v1/identity", { nonce })).status).toBe(200);
  expect((await extRequest(node, token, "GET", "/ext/v1/identity", { nonce })).status).toBe(401); // nonce_replayed
  expect((await extRequest(node, token, "GET", "/ext/v1/profile")).status).toBe(403); // permission_missing
  expect((await extRequest(node, token, "GET", "/ext/v1/connections/c-unknown")).status).toBe(404);
  expect((await extRequest(node, null, "GET", "/ext/v1/identity")).status).toBe(401); // token_invalid: no installation
  await renewToken(node, installationId);
  await new Promise((r) => setTimeout(r, 5)); // the after-response hooks of the requests above

  const families = await scrape(node);
  const calls = (labels: Record<string, string>) => sample(families, "kith_extension_calls_total", labels);
  const mine = { installation: installationId };
  expect(calls({ ...mine, operation: "GET /ext/v1/identity", outcome: "ok" })).toBe(2);
  expect(calls({ ...mine, operation: "GET /ext/v1/profile", outcome: "permission_missing" })).toBe(1);
  expect(calls({ ...mine, operation: "GET /ext/v1/connections/:contactId", outcome: "not_found" })).toBe(1);
  expect(calls({ ...mine, operation: "POST /ext/v1/token", outcome: "ok" })).toBe(1);
  // refused by one of the seven checks: not authenticated as any installation
  expect(calls({ installation: "(unauthenticated)", operation: "GET /ext/v1/identity", outcome: "nonce_replayed" })).toBe(1);
  expect(calls({ installation: "(unauthenticated)", operation: "GET /ext/v1/identity", outcome: "token_invalid" })).toBe(1);
  // nothing else: no series per path or per request, and owner routes are not extension calls
  expect(families.find((f) => f.name === "kith_extension_calls_total")!.metrics).toHaveLength(6);
});

test("the outbox worker counts each delivery attempt by outcome", async () => {
  const { startOutboxWorker } = await import("../../src/jobs/outbox-worker.ts");
  const node = boot(false);
  // a queued delivery whose message is gone: the worker settles it as failed
  node.db.$client.query("INSERT INTO outbox (id, message_id, peer_principal, status, attempts, next_attempt_at, created_at) VALUES ('ob1', 'gone', 'svc:zbob', 'queued', 0, 0, 0)").run();
  const seen: string[] = [];
  const recorder = { request() {}, inkIntent() {}, signInFailure() {}, extensionCall() {}, delivery: (o: string) => void seen.push(o) };
  const worker = startOutboxWorker({ ctx: () => node.ctx({ kind: "system", job: "outbox" }), log: node.ctx().log, metrics: recorder });
  for (let i = 0; i < 200 && seen.length === 0; i++) await new Promise((r) => setTimeout(r, 5));
  await worker.stop();
  expect(seen).toEqual(["failed"]);
});
