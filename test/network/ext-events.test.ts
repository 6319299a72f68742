import { afterEach, describe, expect, test } from "bun:test";
import { connections, contactRelations } from "../../src/db/schema/index.ts";
import { refreshNetwork } from "../../src/domain/network/refresh-network.ts";
import { bootTestApp, type TestNode } from "../helpers/boot.ts";
import { acmeManifest, extRequest, installAcme } from "../helpers/extensions.ts";
import { withHidden, writeNetwork } from "../helpers/network-fixture.ts";
import { asOwner } from "../helpers/owner.ts";

const PERMS = ["layers:read", "graph:read:clusters:summary", "graph:read:clusters:members", "graph:read:bridges", "events:subscribe"];
const manifest = (id: string) =>
  acmeManifest({
    id,
    permissions: PERMS.map((name) => ({ name, required: false, reason: `To use ${name}` })),
    layers: { requested: ["inner", "active", "sympathy", "recognition", "known"], reason: "All circles" },
    events: ["cluster.*", "bridge.*"],
  });
const OWNER = { kind: "owner", subject: "test" } as const;

let node: TestNode;
afterEach(() => node?.close());

type Feed = { events: Array<{ kind: string; subject: { type: string; id: string }; data: { graphVersion: string; changedClusterIds?: string[] } }>; nextSince: number };

describe("graph events on the extension feed", () => {
  test("cluster.recomputed and bridge.changed reach an installation only when what it can see changed, with its own cluster ids", async () => {
    node = bootTestApp({ network: { inline: true, debounceMs: 1_000 } });
    writeNetwork(node.db, withHidden().net, node.clock.now());
    const a = await installAcme(node, { manifest: manifest("com.acme.a"), grant: { permissions: PERMS, layers: ["active", "sympathy", "recognition", "known"], maxAutonomyTier: "transactional" } });
    const b = await installAcme(node, { manifest: manifest("com.acme.b"), grant: { permissions: PERMS.filter((p) => p !== "graph:read:bridges"), layers: ["known"], maxAutonomyTier: "transactional" } });
    const feed = async (token: string, since: number) => (await (await extRequest(node, token, "GET", `/ext/v1/events?since=${since}`)).json()) as Feed;
    const visibleIds = async (token: string) => ((await (await extRequest(node, token, "GET", "/ext/v1/clusters")).json()) as { clusters: Array<{ clusterId: string }> }).clusters.map((c) => c.clusterId).sort();
    const recompute = async () => {
      expect(await refreshNetwork(node.ctx(OWNER))).toBe("waiting");
      node.clock.advance(2_000);
      expect(await refreshNetwork(node.ctx(OWNER))).toBe("recomputed");
    };

    expect((await asOwner(node, "/api/svc/network/clusters")).status).toBe(200); // the first analysis
    const fa = await feed(a.token, 0);
    const fb = await feed(b.token, 0);
    expect(fa.events.map((e) => e.kind)).toEqual(["cluster.recomputed", "bridge.changed"]);
    expect(fa.events[0]!.data.changedClusterIds).toEqual(await visibleIds(a.token));
    expect(fb.events.map((e) => e.kind)).toEqual(["cluster.recomputed"]);
    expect(fb.events[0]!.data.changedClusterIds).toEqual(await visibleIds(b.token));
    expect(fb.events[0]!.data.changedClusterIds!.length).toBeLessThan(fa.events[0]!.data.changedClusterIds!.length);

    // a new hidden (inner) contact joins community 0: the owner's cluster changed, nobody else's view did
    const at = node.clock.now();
    const contact = (id: string, layer: "inner" | "active") => node.db.insert(connections).values({ id, status: "contact", initiatedBy: "us", createdAt: at, updatedAt: at, layer, health: "healthy", company: "Company 0" }).run();
    contact("h-new", "inner");
    for (const [i, m] of ["p00-005", "p00-006", "p00-007"].entries()) node.db.insert(contactRelations).values({ id: `n-${i}`, aId: "h-new", bId: m, source: "owner", weight: 1, createdAt: at }).run();
    await recompute();
    expect((await feed(a.token, fa.nextSince)).events).toEqual([]);
    expect((await feed(b.token, fb.nextSince)).events).toEqual([]);

    // a visible (active) one joins community 1: installation a sees that cluster change; b (known only) does not
    contact("v-new", "active");
    for (const [i, m] of ["p01-005", "p01-006", "p01-007"].entries()) node.db.insert(contactRelations).values({ id: `v-${i}`, aId: m, bId: "v-new", source: "owner", weight: 1, createdAt: at }).run();
    await recompute();
    const after = await feed(a.token, fa.nextSince);
    const c1 = ((await (await extRequest(node, a.token, "GET", "/ext/v1/clusters")).json()) as { clusters: Array<{ clusterId: string; members: Array<{ contactId: string }> }> }).clusters.find((c) => c.members.some((m) => m.contactId === "v-new"))!;
    expect(after.events.filter((e) => e.kind === "cluster.recomputed").map((e) => e.data.changedClusterIds)).toEqual([[c1.clusterId]]);
    expect((await feed(b.token, fb.nextSince)).events).toEqual([]);
  });
});
