import { afterEach, describe, expect, test } from "bun:test";
import { connections, ownerPolicy } from "../../src/db/schema/index.ts";
import type { PerIpRule, RouteHooks } from "../../src/http/plugins/route-options.ts";
import { bootNetworkPair, bootTestApp, stopNodes, TEST_REMOTE_HEADER, type NetworkNode, type TestNode } from "../helpers/boot.ts";
import { postIntent, signedIntent } from "../helpers/ink.ts";
import { json } from "../helpers/process.ts";

// Rate limits seen from the attacker's side: what a client can do to dodge its own limits or to
// spend someone else's.

let node: TestNode | undefined;
let pair: { alice: NetworkNode; bob: NetworkNode } | undefined;
afterEach(async () => {
  node?.close();
  node = undefined;
  await stopNodes(pair?.alice, pair?.bob);
  pair = undefined;
});

/** Every route with a per-address limit, from the app's own route list. */
function limitedRoutes(app: TestNode["app"]): Array<{ method: string; path: string; rule: PerIpRule }> {
  return app.routes.flatMap((r) => {
    const rule = (r.hooks as RouteHooks).perIp;
    return rule ? [{ method: r.method, path: r.path.replace(/:[^/]+/g, "x"), rule }] : [];
  });
}

function send(target: TestNode, method: string, path: string, ip: string): Promise<Response> {
  const body = method === "GET" ? {} : { body: "{}", headers: { "content-type": "application/json", [TEST_REMOTE_HEADER]: ip } };
  return target.request(path, { method, headers: { [TEST_REMOTE_HEADER]: ip }, ...body });
}

describe("per-address limits", () => {
  test("every per-address limit counts an IPv6 client by its /64: fresh addresses of one prefix share one budget", async () => {
    node = bootTestApp({ auth: { ownerEmail: "alice@example.com" } });
    const routes = limitedRoutes(node.app);
    expect(routes.map((r) => `${r.method} ${r.path}`)).toEqual(
      expect.arrayContaining(["POST /auth/email/send", "POST /auth/email/verify", "POST /auth/refresh", "POST /auth/logout", "POST /auth/x/callback", "GET /auth/x/authorize", "GET /discover"]),
    );
    for (const [n, { method, path, rule }] of routes.entries()) {
      const prefix = `2001:db8:${n + 1}:7`;
      for (let i = 1; i <= rule.limit; i++) {
        const res = await send(node, method, path, `${prefix}::${i.toString(16)}`);
        expect({ path, i, status: res.status }).not.toEqual({ path, i, status: 429 });
      }
      const limited = await send(node, method, path, `${prefix}:ffff:ffff:ffff:ffff`);
      expect({ path, status: limited.status }).toEqual({ path, status: 429 });
      expect(await json(limited)).toMatchObject({ error: "rate_limited", message: expect.any(String) });
      expect(Number(limited.headers.get("retry-after"))).toBeGreaterThan(0);
      // the neighbouring /64 is another client
      expect((await send(node, method, path, `2001:db8:${n + 1}:8::1`)).status).not.toBe(429);
    }
  });

  test("the INK endpoints count an IPv6 client by its /64 too", async () => {
    node = bootTestApp();
    const path = `/agents/${node.agentId}/inbox`;
    for (let i = 1; i <= 60; i++) expect((await send(node, "POST", path, `2001:db8:99:1::${i.toString(16)}`)).status).not.toBe(429);
    const limited = await send(node, "POST", path, "2001:db8:99:1:aaaa::1");
    expect(limited.status).toBe(429);
    expect(await json(limited)).toMatchObject({ error: "rate_limited", code: "rate_limited", protocol: "ink/0.1" });
  });

  test("the intent endpoint (120 per minute per address) and the agent-card query (60): then 429 with Retry-After; other addresses and the next minute are not affected", async () => {
    node = bootTestApp();
    const id = encodeURIComponent(node.agentId!);
    for (const [n, { path, limit }] of [{ path: `/ink/v1/${id}/intent`, limit: 120 }, { path: `/ink/v1/${id}/agent-card-query`, limit: 60 }].entries()) {
      for (let i = 0; i < limit; i++) expect((await send(node, "POST", path, `198.51.100.${20 + n}`)).status).not.toBe(429);
      const limited = await send(node, "POST", path, `198.51.100.${20 + n}`);
      expect({ path, status: limited.status }).toEqual({ path, status: 429 });
      expect(await json(limited)).toMatchObject({ error: "rate_limited", code: "rate_limited", protocol: "ink/0.1" });
      expect(Number(limited.headers.get("retry-after"))).toBeGreaterThan(0);
      expect((await send(node, "POST", path, "198.51.100.99")).status).not.toBe(429);
    }
    node.clock.advance(60_000);
    expect((await send(node, "POST", `/ink/v1/${id}/intent`, "198.51.100.20")).status).not.toBe(429);
  });
});

describe("a flood of new keys", () => {
  test("never resets another client's live window: a spent per-address budget and a spent hourly per-sender budget stay spent", async () => {
    pair = await bootNetworkPair();
    const { alice, bob } = pair;
    const now = alice.clock.now();
    alice.db.insert(connections).values({ id: "con_bob", principal: `key:${bob.agentId!.slice(4)}`, agentId: bob.agentId, cardUrl: bob.cardUrl, status: "connected", initiatedBy: "us", createdAt: now, updatedAt: now }).run();
    alice.db.insert(ownerPolicy).values({ id: 1, maxAutonomyLevel: "draft_only", maxInboundRate: 1, acceptForeignAgents: true, updatedAt: 0 }).run();
    // the victims: a client that used up its sign-in budget, and Bob who used up his hour
    const victim = "198.51.100.40";
    for (let i = 0; i < 10; i++) await send(alice, "POST", "/auth/email/send", victim);
    expect((await send(alice, "POST", "/auth/email/send", victim)).status).toBe(429);
    expect((await postIntent(alice, signedIntent("bob", alice, { intent: "ping", payload: {} }))).status).toBe(202);
    expect((await postIntent(alice, signedIntent("bob", alice, { intent: "ping", payload: {} }))).status).toBe(429);
    // the attacker: one cheap request from each of 50,001 addresses
    for (let i = 0; i < 50_001; i++) {
      await alice.app.handle(new Request("http://localhost/discover", { headers: { [TEST_REMOTE_HEADER]: `10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}` } }));
    }
    expect((await send(alice, "POST", "/auth/email/send", victim)).status).toBe(429);
    expect((await postIntent(alice, signedIntent("bob", alice, { intent: "ping", payload: {} }))).status).toBe(429);
  }, 30_000); // heavy (thousands of requests, mutations or scrypt runs): slow on a loaded machine
});
