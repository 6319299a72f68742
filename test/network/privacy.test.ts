import { afterEach, describe, expect, test } from "bun:test";
import type { DunbarLayer } from "../../src/db/schema/index.ts";
import { readAnalytics, readFacts } from "../../src/domain/network/internal/analytics.ts";
import { bridgesBody, clustersBody, graphBody } from "../../src/domain/network/internal/graph-bodies.ts";
import { decayingBody, healthBody } from "../../src/domain/network/internal/health-bodies.ts";
import { bootTestApp, type TestNode } from "../helpers/boot.ts";
import { withHidden, without, writeNetwork } from "../helpers/network-fixture.ts";

const OWNER = { kind: "owner", subject: "test" } as const;
let nodes: TestNode[] = [];
afterEach(() => {
  for (const n of nodes) n.close();
  nodes = [];
});

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
    decaying: strip(decayingBody(a, node.clock.now(), 500, { names: true })),
    graph: (({ nodes, edges, totals }) => ({ nodes: nodes.map(({ clusterId, ...n }) => ({ ...n, cluster: clusterId && name.get(clusterId) })), edges, totals }))(graphBody(a, 5000)),
  };
}

/** The network with hidden contacts on one node, without them on another. */
function fullAndPruned() {
  const { net, hidden } = withHidden();
  const full = bootTestApp({ name: "full", network: { inline: true } });
  const pruned = bootTestApp({ name: "pruned", network: { inline: true } });
  nodes.push(full, pruned);
  writeNetwork(full.db, net, full.clock.now());
  writeNetwork(pruned.db, without(net, hidden), pruned.clock.now());
  return { full, pruned, hidden };
}

describe("filtering by layer never reveals a hidden contact", () => {
  test("every number an installation sees equals the same network's numbers with the hidden contacts deleted", async () => {
    const { full, pruned, hidden } = fullAndPruned();
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
    const { full, pruned, hidden } = fullAndPruned();
    const all = new Set<DunbarLayer>(["inner", "active", "sympathy", "recognition", "known"]);
    const fullAll = await visibleNumbers(full, all);
    const prunedAll = await visibleNumbers(pruned, all);
    expect(fullAll.clusters).not.toEqual(prunedAll.clusters);
    expect(fullAll.bridges).not.toEqual(prunedAll.bridges);
  });
});
