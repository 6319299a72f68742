import { describe, expect, test } from "bun:test";
import cytoscape from "cytoscape";
import { buildAdjacency, type EdgeList } from "../../src/domain/network/internal/adjacency.ts";
import { seededRng } from "../../src/domain/network/internal/communities.ts";
import { cutStructure } from "../../src/domain/network/internal/cut-structure.ts";

/** A random simple graph: n nodes, about `m` distinct edges, some nodes isolated on purpose. */
function randomGraph(n: number, m: number, rng: () => number): EdgeList {
  const seen = new Set<number>();
  const a: number[] = [];
  const b: number[] = [];
  for (let t = 0; t < m * 3 && a.length < m; t++) {
    const u = Math.floor(rng() * n);
    const v = Math.floor(rng() * n);
    if (u === v) continue;
    const key = Math.min(u, v) * n + Math.max(u, v);
    if (seen.has(key)) continue;
    seen.add(key);
    a.push(u);
    b.push(v);
  }
  return { a: Int32Array.from(a), b: Int32Array.from(b), w: new Float64Array(a.length).fill(1) };
}

/** Independent oracle 1: components by union-find, leaving out one node or one edge. */
function components(n: number, e: EdgeList, skipNode = -1, skipEdge = -1): number {
  const parent = Int32Array.from({ length: n }, (_, i) => i);
  const find = (x: number): number => (parent[x] === x ? x : (parent[x] = find(parent[x]!)));
  for (let i = 0; i < e.a.length; i++) {
    if (i === skipEdge || e.a[i] === skipNode || e.b[i] === skipNode) continue;
    parent[find(e.a[i]!)] = find(e.b[i]!);
  }
  let c = 0;
  for (let v = 0; v < n; v++) if (v !== skipNode && find(v) === v) c++;
  return c;
}

function bruteForce(n: number, e: EdgeList): { cut: number[]; bridges: number[] } {
  const base = components(n, e);
  const cut: number[] = [];
  const bridges: number[] = [];
  for (let v = 0; v < n; v++) {
    const isolated = !e.a.includes(v) && !e.b.includes(v);
    // removing an isolated node removes its own component: that is not a cut
    if (components(n, e, v) > base - (isolated ? 1 : 0)) cut.push(v);
  }
  for (let i = 0; i < e.a.length; i++) if (components(n, e, -1, i) > base) bridges.push(i);
  return { cut, bridges };
}

/** Independent oracle 2: cytoscape's (recursive) Hopcroft–Tarjan cut vertices. */
function cytoscapeCut(n: number, e: EdgeList): number[] {
  const cy = cytoscape({ headless: true, styleEnabled: false });
  cy.add(Array.from({ length: n }, (_, i) => ({ group: "nodes" as const, data: { id: `n${i}` } })));
  cy.add(Array.from(e.a, (a, i) => ({ group: "edges" as const, data: { id: `e${i}`, source: `n${a}`, target: `n${e.b[i]}` } })));
  const { cut } = cy.elements().hopcroftTarjanBiconnected();
  return cut.map((node) => Number(node.id().slice(1))).sort((x, y) => x - y);
}

const ones = (flags: Uint8Array) => [...flags.keys()].filter((i) => flags[i] === 1);

describe("articulation points and bridge edges (own iterative Tarjan) against independent oracles", () => {
  test("300 random graphs, sparse to dense, with isolated nodes and several components", () => {
    const rng = seededRng(42);
    let cuts = 0;
    let bridges = 0;
    for (let round = 0; round < 300; round++) {
      const n = 2 + Math.floor(rng() * 60);
      const m = Math.floor(rng() * n * (round % 3 === 0 ? 0.9 : 2.5));
      const e = randomGraph(n, m, rng);
      const mine = cutStructure(buildAdjacency(n, e), e.a.length);
      const oracle = bruteForce(n, e);
      expect(ones(mine.articulation)).toEqual(oracle.cut);
      expect(ones(mine.bridgeEdge)).toEqual(oracle.bridges);
      expect(ones(mine.articulation)).toEqual(cytoscapeCut(n, e));
      cuts += oracle.cut.length;
      bridges += oracle.bridges.length;
    }
    // the sample is not degenerate: it has plenty of both
    expect(cuts).toBeGreaterThan(300);
    expect(bridges).toBeGreaterThan(300);
  });

  test("a 1,000-node random graph agrees with cytoscape", () => {
    const e = randomGraph(1000, 1400, seededRng(7));
    expect(ones(cutStructure(buildAdjacency(1000, e), e.a.length).articulation)).toEqual(cytoscapeCut(1000, e));
  });

  test("a path of 200,000 contacts does not overflow the stack (iterative)", () => {
    const n = 200_000;
    const a = Int32Array.from({ length: n - 1 }, (_, i) => i);
    const b = Int32Array.from({ length: n - 1 }, (_, i) => i + 1);
    const r = cutStructure(buildAdjacency(n, { a, b, w: new Float64Array(n - 1) }), n - 1);
    expect(ones(r.articulation).length).toBe(n - 2);
    expect(ones(r.bridgeEdge).length).toBe(n - 1);
  });

  test("a masked adjacency ignores the edges left out", () => {
    // triangle 0-1-2 plus tail 2-3: without edge 0-1 the triangle becomes a path
    const e = { a: Int32Array.from([0, 1, 2, 2]), b: Int32Array.from([1, 2, 0, 3]), w: new Float64Array(4) };
    expect(ones(cutStructure(buildAdjacency(4, e), 4).bridgeEdge)).toEqual([3]);
    expect(ones(cutStructure(buildAdjacency(4, e, (i) => i !== 0), 4).bridgeEdge)).toEqual([1, 2, 3]);
  });
});
