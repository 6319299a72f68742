import { afterEach, describe, expect, test } from "bun:test";
import { bootTestApp, type TestNode } from "../helpers/boot.ts";
import { acmeManifest, manifestHash } from "../helpers/extensions.ts";
import { asOwner } from "../helpers/owner.ts";

let node: TestNode;
afterEach(() => node?.close());

const preview = (body: unknown) => asOwner(node, "/api/svc/extensions/preview", { body });

describe("POST /api/svc/extensions/preview (a consent screen for an install from a URL)", () => {
  test("answers what the manifest asks, in words, with the hash the install pins; the install with that hash succeeds; nothing is stored before", async () => {
    const { testTls } = await import("../helpers/tls.ts");
    const manifest = acmeManifest();
    let served = JSON.stringify(manifest);
    const server = Bun.serve({ port: 0, hostname: "127.0.0.1", tls: testTls(), fetch: (req) => (new URL(req.url).pathname === "/acme.json" ? new Response(served, { headers: { "content-type": "application/json" } }) : new Response("no", { status: 404 })) });
    try {
      node = bootTestApp();
      const url = `https://manifests.kith.test:${server.port}/acme.json`;
      const res = await preview({ manifestUrl: url });
      expect(res.status).toBe(200);
      const body = (await res.json()) as Record<string, any>;
      expect(body).toMatchObject({ extensionId: "com.acme.keepintouch", name: "Keep in touch", version: "1.0.0", publisher: { name: "Acme", domain: "acme.com" }, manifestHash: manifestHash(manifest), maxAutonomyTier: "social", intents: ["ping", "ask"] });
      expect(body.layersRequested).toEqual({ requested: ["inner", "active", "sympathy"], reason: "Only your closer circles matter here" });
      expect(body.permissionsSummary[0]).toEqual({ name: "connections:list", required: true, reason: "To list the people you keep in touch with", title: "See your contacts in the chosen circles" });
      expect(body.manifest).toEqual(manifest);
      expect(((await (await asOwner(node, "/api/svc/extensions")).json()) as { installations: unknown[] }).installations).toEqual([]);
      const installed = await asOwner(node, "/api/svc/extensions/install", { body: { source: "url", manifestUrl: url, manifestHash: body.manifestHash, grant: { permissions: ["connections:list"], layers: ["inner"] } } });
      expect(installed.status).toBe(201);

      served = JSON.stringify({ ...manifest, permissions: "all of them" });
      const invalid = await preview({ manifestUrl: url });
      expect(invalid.status).toBe(400);
      expect(((await invalid.json()) as { message: string }).message).toContain("permissions");
      const missing = await preview({ manifestUrl: `https://manifests.kith.test:${server.port}/nope.json` });
      expect([missing.status, ((await missing.json()) as { error: string }).error]).toEqual([422, "manifest_unavailable"]);
    } finally {
      server.stop(true);
    }
  });

  test("refuses a bad body (400), a plain http URL where private peers are not allowed (400) and a caller without the owner token (401)", async () => {
    node = bootTestApp();
    for (const body of [{}, { manifestUrl: 7 }, { manifestUrl: "" }, { manifestUrl: `https://x.test/${"a".repeat(2100)}` }, { manifestUrl: "https://x.test/m.json", extra: 1 }, []]) {
      const res = await preview(body);
      expect({ body, status: res.status }).toEqual({ body, status: 400 });
      expect(Object.keys((await res.json()) as object).sort()).toEqual(["error", "message"]);
    }
    node.collaborators.peers.allowPrivatePeers = false;
    expect((await preview({ manifestUrl: "http://127.0.0.1:9/acme.json" })).status).toBe(400);
    const anonymous = await node.request("/api/svc/extensions/preview", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ manifestUrl: "https://x.test/m.json" }) });
    expect(anonymous.status).toBe(401);
  });
});
