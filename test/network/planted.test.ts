import { afterEach, describe, expect, test } from "bun:test";
import { bootTestApp, type TestNode } from "../helpers/boot.ts";
import { plantedNetwork, writeNetwork } from "../helpers/network-fixture.ts";
import { asOwner } from "../helpers/owner.ts";

let node: TestNode;
afterEach(() => node?.close());

describe("planted communities and sole connectors are recovered (owner API)", () => {
  test("clusters are the planted communities, labelled by their company; connectors and cuts are the planted ones", async () => {
    node = bootTestApp({ network: { inline: true } });
    const { net, sole, cuts } = plantedNetwork();
    writeNetwork(node.db, net, node.clock.now());

    const res = await asOwner(node, "/api/svc/network/clusters");
    expect(res.status).toBe(200);
    const clusters = (await res.json()) as { stale: boolean; clusters: Array<{ clusterId: string; label: string; size: number; members: Array<{ contactId: string }> }> };
    expect(clusters.stale).toBe(false);
    const planted = new Map<string, number>(net.contacts.map((c) => [c.id, c.community]));
    const found = clusters.clusters.map((c) => c.members.map((x) => x.contactId).sort());
    const expected = [0, 1, 2, 3, 4, 5].map((k) => net.contacts.filter((c) => c.community === k).map((c) => c.id).sort());
    expect(found.sort()).toEqual(expected.sort());
    for (const c of clusters.clusters) expect(c.label).toBe(`Company ${planted.get(c.members[0]!.contactId)}`);

    const idOf = new Map(clusters.clusters.map((c) => [planted.get(c.members[0]!.contactId)!, c.clusterId]));
    const bridges = (await (await asOwner(node, "/api/svc/network/bridges")).json()) as {
      bridges: Array<{ contactId: string; isSoleConnector: boolean; isArticulationPoint: boolean; isOnBridgeEdge: boolean; clusters: Array<{ from: string; to: string; edgesBetween: number }> }>;
    };
    const soleFound = bridges.bridges.filter((b) => b.isSoleConnector);
    expect(soleFound.map((b) => b.contactId).sort()).toEqual([...sole.keys()].sort());
    for (const b of soleFound) expect(b.clusters).toEqual(sole.get(b.contactId)!.map(([f, t, n]) => ({ from: idOf.get(f)!, to: idOf.get(t)!, edgesBetween: n })));
    expect(bridges.bridges.filter((b) => b.isArticulationPoint).map((b) => b.contactId).sort()).toEqual(cuts);
    expect(bridges.bridges.filter((b) => b.isOnBridgeEdge).map((b) => b.contactId).sort()).toEqual(cuts);
  });

  test("the drawing is bounded, and every answer has an ETag that gives 304 until something changes", async () => {
    node = bootTestApp();
    writeNetwork(node.db, plantedNetwork().net, node.clock.now());
    const res = await asOwner(node, "/api/svc/network/graph?limit=25");
    expect(res.status).toBe(200);
    const g = (await res.json()) as { truncated: boolean; totals: { nodes: number }; nodes: Array<{ id: string; clusterId: string | null }>; edges: Array<{ source: string; target: string }>; clusters: unknown[] };
    expect(g.nodes.length).toBe(25);
    expect(g.truncated).toBe(true);
    expect(g.totals.nodes).toBe(120);
    const shown = new Set(g.nodes.map((n) => n.id));
    for (const e of g.edges) expect(shown.has(e.source) && shown.has(e.target)).toBe(true);
    expect(g.clusters.length).toBe(6);

    for (const path of ["/api/svc/network/graph", "/api/svc/network/clusters", "/api/svc/network/bridges", "/api/svc/network/health", "/api/svc/network/decaying"]) {
      const first = await asOwner(node, path);
      expect(first.status).toBe(200);
      const etag = first.headers.get("etag")!;
      expect(etag).toMatch(/^"[0-9a-f]{24}"$/);
      const again = await asOwner(node, path, { headers: { "if-none-match": etag } });
      expect(again.status).toBe(304);
      expect(await again.text()).toBe("");
      expect((await asOwner(node, path, { headers: { "if-none-match": '"other"' } })).status).toBe(200);
    }
  });

  test("bad query values are 400, no token is 401", async () => {
    node = bootTestApp();
    for (const q of ["graph?limit=0", "graph?limit=2001", "graph?limit=abc", "graph?limit=1.5", "clusters?maxMembers=-1", "decaying?limit=501", "decaying?limit="]) {
      const res = await asOwner(node, `/api/svc/network/${q}`);
      expect(res.status, q).toBe(400);
      expect(((await res.json()) as { error: string }).error).toBe("invalid_input");
    }
    for (const p of ["graph", "clusters", "bridges", "health", "decaying"]) expect((await node.request(`/api/svc/network/${p}`)).status).toBe(401);
  });
});

describe("stated relations (POST/DELETE /api/svc/network/relations)", () => {
  test("the owner ties two contacts, the graph shows the tie after the recompute; bad input is 400/404; deleting removes it", async () => {
    node = bootTestApp({ network: { inline: true } });
    writeNetwork(node.db, plantedNetwork().net, node.clock.now());
    const created = await asOwner(node, "/api/svc/network/relations", { body: { contactA: "p05-009", contactB: "p00-009" } });
    expect(created.status).toBe(201);
    expect(await created.json()).toMatchObject({ contactA: "p00-009", contactB: "p05-009", source: "owner", weight: 1 });
    expect((await asOwner(node, "/api/svc/network/relations", { body: { contactA: "p00-009", contactB: "p05-009", weight: 2 } })).status).toBe(200);
    const g = (await (await asOwner(node, "/api/svc/network/graph?limit=2000")).json()) as { edges: Array<{ source: string; target: string; weight: number; isBridge: boolean }> };
    expect(g.edges).toContainEqual({ source: "p00-009", target: "p05-009", weight: 2, isBridge: false });

    for (const [body, status] of [
      [{ contactA: "p00-001", contactB: "p00-001" }, 400],
      [{ contactA: "p00-001" }, 400],
      [{ contactA: "p00-001", contactB: "p00-002", weight: 0 }, 400],
      [{ contactA: "p00-001", contactB: "p00-002", weight: "1" }, 400],
      [{ contactA: "p00-001", contactB: "nobody" }, 404],
      [{ contactA: "x".repeat(300), contactB: "p00-002" }, 400],
    ] as const) expect((await asOwner(node, "/api/svc/network/relations", { body })).status, JSON.stringify(body).slice(0, 60)).toBe(status);

    expect((await asOwner(node, "/api/svc/network/relations/p05-009/p00-009", { method: "DELETE" })).status).toBe(200);
    expect((await asOwner(node, "/api/svc/network/relations/p05-009/p00-009", { method: "DELETE" })).status).toBe(404);
    expect((await node.request("/api/svc/network/relations", { method: "POST", headers: { "content-type": "application/json" }, body: "{}" })).status).toBe(401);
  });
});
