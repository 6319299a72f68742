import { afterEach, describe, expect, test } from "bun:test";
import { eq, inArray } from "drizzle-orm";
import { openDatabase } from "../../src/db/client.ts";
import { connections, contactRelations, events } from "../../src/db/schema/index.ts";
import type { NetworkRunner } from "../../src/domain/context.ts";
import { listNetworkClusters } from "../../src/domain/network/list-network-clusters.ts";
import { refreshNetwork } from "../../src/domain/network/refresh-network.ts";
import { bootTestApp, type TestNode } from "../helpers/boot.ts";
import { plantedNetwork, writeNetwork } from "../helpers/network-fixture.ts";
import { asOwner } from "../helpers/owner.ts";

type Clusters = { graphVersion: string; computedAt: string; stale: boolean; clusters: Array<{ clusterId: string; members: Array<{ contactId: string }> }> };
const OWNER = { kind: "owner", subject: "test" } as const;

let node: TestNode;
afterEach(() => node?.close());

/** The node's runner, counted. */
function counting(node: TestNode): { runner: NetworkRunner; runs: () => number } {
  let n = 0;
  const inner = node.collaborators.network.runner;
  return { runner: { compute: (r) => (n++, inner.compute(r)) }, runs: () => n };
}

async function clusters(node: TestNode): Promise<Clusters> {
  const res = await asOwner(node, "/api/svc/network/clusters");
  expect(res.status).toBe(200);
  return (await res.json()) as Clusters;
}

const byFirstMember = (c: Clusters) => new Map(c.clusters.map((x) => [x.members.map((m) => m.contactId).sort()[0]!, x.clusterId]));

describe("network snapshots: lazy, debounced, stale-while-recomputing, stable ids, persisted", () => {
  test("nothing runs before analytics are asked for; then a change is served stale until the debounce lets the recompute run", async () => {
    node = bootTestApp({ network: { debounceMs: 60_000, maxWaitMs: 600_000 } });
    const { net } = plantedNetwork();
    writeNetwork(node.db, net, node.clock.now());
    const count = counting(node);
    const ctx = () => ({ ...node.ctx(OWNER), network: { ...node.collaborators.network, runner: count.runner } });
    expect(await refreshNetwork(ctx())).toBe("idle");
    expect(count.runs()).toBe(0);

    const first = await clusters(node);
    expect(first.stale).toBe(false);
    expect(await refreshNetwork(ctx())).toBe("fresh");

    // a new tie: answers are the old snapshot, marked stale, until the debounce has passed
    node.db.insert(contactRelations).values({ id: "rel-new", aId: "p00-000", bId: "p05-005", source: "owner", weight: 1, createdAt: node.clock.now() }).run();
    const during = await clusters(node);
    expect(during.stale).toBe(true);
    expect(during.graphVersion).toBe(first.graphVersion);
    expect(during.computedAt).toBe(first.computedAt);
    expect(await refreshNetwork(ctx())).toBe("waiting");
    node.clock.advance(30_000);
    expect(await refreshNetwork(ctx())).toBe("waiting");
    node.clock.advance(31_000);
    expect(await refreshNetwork(ctx())).toBe("recomputed");
    expect(count.runs()).toBe(1);

    const after = await clusters(node);
    expect(after.stale).toBe(false);
    expect(after.graphVersion).not.toBe(first.graphVersion);
    // membership held: every cluster kept its id
    expect(byFirstMember(after)).toEqual(byFirstMember(first));
    const kinds = node.db.select().from(events).where(inArray(events.type, ["cluster.recomputed", "bridge.changed"])).all();
    expect(kinds.map((e) => e.type)).toEqual(["cluster.recomputed", "bridge.changed", "bridge.changed"]);
    expect(JSON.parse(kinds[0]!.dataJson!).changedClusterIds).toHaveLength(6);
    expect(JSON.parse(kinds[2]!.dataJson!).graphVersion).toBe(after.graphVersion);
  });

  test("a graph that keeps changing is recomputed after maxWait; the same graph again only notes the check", async () => {
    node = bootTestApp({ network: { debounceMs: 60_000, maxWaitMs: 300_000 } });
    writeNetwork(node.db, plantedNetwork().net, node.clock.now());
    await clusters(node);
    const ctx = () => node.ctx(OWNER);
    let outcome = "";
    let i = 0;
    for (; i < 20 && outcome !== "recomputed"; i++) {
      node.db.insert(contactRelations).values({ id: `rel-x${i}`, aId: "p01-000", bId: `p02-${String(i).padStart(3, "0")}`, source: "owner", weight: 1, createdAt: node.clock.now() }).onConflictDoNothing().run();
      outcome = await refreshNetwork(ctx());
      node.clock.advance(30_000);
    }
    expect(outcome).toBe("recomputed");
    expect(i).toBe(11); // 10 × 30 s = the 300 s of maxWait
    // a contact edited (not its ties) moves the change key, but not the graph
    const before = await clusters(node);
    node.db.update(connections).set({ updatedAt: node.clock.now() + 1 }).where(eq(connections.id, "p02-000")).run();
    expect(await refreshNetwork(ctx())).toBe("waiting");
    node.clock.advance(61_000);
    expect(await refreshNetwork(ctx())).toBe("unchanged");
    const same = await clusters(node);
    expect(same.graphVersion).toBe(before.graphVersion);
    expect(same.stale).toBe(false);
  });

  test("a cluster that loses a quarter of its members keeps its id; a restart serves the stored snapshot without recomputing", async () => {
    node = bootTestApp({ network: { debounceMs: 1_000 } });
    writeNetwork(node.db, plantedNetwork().net, node.clock.now());
    const first = await clusters(node);
    node.db.delete(connections).where(inArray(connections.id, ["p03-000", "p03-001", "p03-002", "p03-004", "p03-005"])).run();
    expect(await refreshNetwork(node.ctx(OWNER))).toBe("waiting"); // the debounce starts when the change is seen
    node.clock.advance(2_000);
    expect(await refreshNetwork(node.ctx(OWNER))).toBe("recomputed");
    const second = await clusters(node);
    const c3 = (c: Clusters) => c.clusters.find((x) => x.members.some((m) => m.contactId === "p03-010"))!;
    expect(c3(second).members).toHaveLength(15);
    expect(c3(second).clusterId).toBe(c3(first).clusterId);

    // "restart": a new connection to the same file has no state in memory; the runner must not run
    node.clock.advance(5 * 60_000);
    const db = openDatabase(`${node.dir}/kith.db`);
    const count = counting(node);
    const restarted = { ...node.ctx(OWNER), db, network: { ...node.collaborators.network, runner: count.runner } };
    const served = await listNetworkClusters(restarted, { maxMembers: 500 });
    expect(count.runs()).toBe(0);
    expect(served.body.computedAt).toBe(second.computedAt);
    expect(served.body.graphVersion).toBe(second.graphVersion);
    expect(served.body.stale).toBe(false);
    expect(await refreshNetwork(restarted)).toBe("fresh");
    db.$client.close();
  });
});

describe("network analytics when the analysis cannot run", () => {
  test("the first read answers 503 with Retry-After (not 500), and works once the runner does", async () => {
    node = bootTestApp();
    writeNetwork(node.db, plantedNetwork().net, node.clock.now());
    const real = node.collaborators.network.runner;
    let broken = true;
    node.collaborators.network.runner = { compute: (r) => (broken ? Promise.reject(new Error("worker died")) : real.compute(r)) };
    const res = await asOwner(node, "/api/svc/network/bridges");
    expect(res.status).toBe(503);
    expect(res.headers.get("retry-after")).toBe("30");
    expect(((await res.json()) as { error: string }).error).toBe("unavailable");
    broken = false;
    expect((await asOwner(node, "/api/svc/network/bridges")).status).toBe(200);
  });
});
