// The SDK's network-analytics methods (health, decaying, clusters, bridges) and agent.chat against
// the real node (issue 15's endpoints).
import { afterEach, expect, test } from "bun:test";
import { bootTestApp, type TestNode } from "../../../test/helpers/boot.ts";
import { acmeKey, acmeManifest, installAcme } from "../../../test/helpers/extensions.ts";
import { withHidden, writeNetwork } from "../../../test/helpers/network-fixture.ts";
import { KithClient, PermissionError } from "../src/index.ts";

let node: TestNode;
afterEach(() => node?.close());

test("health, decaying, clusters, bridges and agent.chat answer the SDK's typed methods", async () => {
  node = bootTestApp({ network: { inline: true } } as never);
  writeNetwork(node.db, withHidden().net, node.clock.now());
  const perms = ["connections:list", "layers:read", "graph:read:clusters:summary", "graph:read:bridges", "agent.chat"];
  const manifest = acmeManifest({ permissions: perms.map((name) => ({ name, required: false, reason: "for the SDK check here" })) });
  const { installationId } = await installAcme(node, { manifest, grant: { permissions: perms.slice(0, 4), layers: ["inner", "active"], maxAutonomyTier: "transactional" } });
  const fetchThroughApp = ((url: URL, init: RequestInit) => node.request(url.pathname + url.search, init)) as unknown as typeof fetch;
  const kith = new KithClient({ baseUrl: "https://alice.example.com", installationId, privateKey: acmeKey(0).secretKey, fetch: fetchThroughApp, now: () => node.clock.now(), sleep: async () => {} });
  const health = await kith.health();
  expect(health.layers.map((l) => l.layer).sort()).toEqual(["active", "inner"]);
  const decaying = await kith.decaying();
  expect(decaying.decaying.length).toBeGreaterThan(0);
  expect(decaying.decaying.every((c) => ["inner", "active"].includes(c.layer) && typeof c.suggestedAction === "string")).toBe(true);
  expect(Array.isArray((await kith.clusters()).clusters)).toBe(true);
  expect(Array.isArray((await kith.bridges()).bridges)).toBe(true);
  const chat = await kith.agent.chat("who is decaying?").catch((e) => e);
  expect([chat instanceof PermissionError, chat.required]).toEqual([true, "agent.chat"]);
});
