import { afterEach, describe, expect, test } from "bun:test";
import type { DunbarLayer } from "../../src/db/schema/index.ts";
import { readAnalytics, readFacts } from "../../src/domain/network/internal/analytics.ts";
import { bridgesBody, clustersBody, graphBody } from "../../src/domain/network/internal/graph-bodies.ts";
import { decayingBody, healthBody } from "../../src/domain/network/internal/health-bodies.ts";
import { bootTestApp, type TestNode } from "../helpers/boot.ts";
import { plantedNetwork, without, writeNetwork, type PlantedNetwork } from "../helpers/network-fixture.ts";

const OWNER = { kind: "owner", subject: "test" } as const;
let nodes: TestNode[] = [];
afterEach(() => {
  for (const n of nodes) n.close();
  nodes = [];
});

/**
 * The planted network plus hidden contacts placed where they would move visible numbers if the
 * filter leaked: a hidden second connector between C0 and C1 (the visible one then looks shared),
 * a hidden pendant on a visible contact (which would then be a cut), a hidden cluster of its own,
 * and every contact of the `inner` layer (about a fifth of each community).
 */
function withHidden(): { net: PlantedNetwork; hidden: Set<string> } {
  const { net } = plantedNetwork();
  const add = (id: string, community: number) => net.contacts.push({ id, community, layer: "inner", band: "cooling", company: "Hidden Inc" });
  add("h-connector", 0);
  net.ties.push(["h-connector", "p00-001"], ["h-connector", "p00-002"], ["h-connector", "p01-010"]);
  add("h-pendant", 2);
  net.ties.push(["h-pendant", "p02-015"]);
  for (const id of ["h-c1", "h-c2", "h-c3", "h-c4"]) add(id, 9);
  net.ties.push(["h-c1", "h-c2"], ["h-c2", "h-c3"], ["h-c3", "h-c4"], ["h-c4", "h-c1"], ["h-c1", "h-c3"], ["h-c4", "p03-007"]);
  for (const c of net.contacts) if (c.id.startsWith("p") && c.id.endsWith("3")) c.layer = "inner"; // a few more, everywhere
  const hidden = new Set(net.contacts.filter((c) => c.layer === "inner").map((c) => c.id));
  return { net, hidden };
}

/** Everything an installation granted `layers` would be told, with cluster ids replaced by their members. */
async function visibleNumbers(node: TestNode, layers: Set<DunbarLayer>) {
  const ctx = node.ctx(OWNER);
  const a = await readAnalytics(ctx, layers);
  const clusters = clustersBody(a, { members: true });
  const name = new Map(clusters.clusters.map((c) => [c.clusterId, c.members!.map((m) => m.contactId).sort().join(",")]));
  const strip = <T extends object>(o: T) => {
    const { graphVersion: _g, computedAt: _c, stale: _s, ...rest } = o as T & { graphVersion: unknown; computedAt: unknown; stale: unknown };
    return rest;
  };
  return {
    clusters: clusters.clusters.map(({ clusterId, updatedAt: _u, ...c }) => ({ ...c, key: name.get(clusterId) })).sort((x, y) => (x.key! < y.key! ? -1 : 1)),
    bridges: strip(bridgesBody(a)).bridges.map((b) => ({ ...b, clusterId: b.clusterId && name.get(b.clusterId), clusters: b.clusters.map((l) => ({ ...l, from: name.get(l.from), to: name.get(l.to) })) })),
    health: healthBody(readFacts(ctx).map, layers, node.clock.now()),
    decaying: strip(decayingBody(a, node.clock.now(), 500)),
    graph: (({ nodes, edges, totals }) => ({ nodes: nodes.map(({ clusterId, ...n }) => ({ ...n, cluster: clusterId && name.get(clusterId) })), edges, totals }))(graphBody(a, 5000)),
  };
}

describe("filtering by layer never reveals a hidden contact", () => {
  test("every number an installation sees equals the same network's numbers with the hidden contacts deleted", async () => {
    const { net, hidden } = withHidden();
    const full = bootTestApp({ name: "full", network: { inline: true } });
    const pruned = bootTestApp({ name: "pruned", network: { inline: true } });
    nodes.push(full, pruned);
    writeNetwork(full.db, net, full.clock.now());
    writeNetwork(pruned.db, without(net, hidden), pruned.clock.now());
    expect(hidden.size).toBeGreaterThan(20);

    for (const grant of [["active", "sympathy", "recognition", "known"], ["active", "sympathy"], ["known"]] as DunbarLayer[][]) {
      const layers = new Set(grant);
      const seen = await visibleNumbers(full, layers);
      const truth = await visibleNumbers(pruned, layers);
      expect(seen).toEqual(truth);
      const text = JSON.stringify(seen);
      for (const h of hidden) expect(text.includes(`"${h}"`)).toBe(false);
      expect(text.includes("Hidden Inc")).toBe(false);
    }
  });

  test("without the filter the hidden contacts do move the numbers (the comparison above can fail)", async () => {
    const { net, hidden } = withHidden();
    const full = bootTestApp({ name: "full", network: { inline: true } });
    const pruned = bootTestApp({ name: "pruned", network: { inline: true } });
    nodes.push(full, pruned);
    writeNetwork(full.db, net, full.clock.now());
    writeNetwork(pruned.db, without(net, hidden), pruned.clock.now());
    const all = new Set<DunbarLayer>(["inner", "active", "sympathy", "recognition", "known"]);
    const fullAll = await visibleNumbers(full, all);
    const prunedAll = await visibleNumbers(pruned, all);
    expect(fullAll.clusters).not.toEqual(prunedAll.clusters);
    expect(fullAll.bridges).not.toEqual(prunedAll.bridges);
  });
});
