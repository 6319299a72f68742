import type Graph from "graphology";
import louvain from "graphology-communities-louvain";
import type { Adjacency, EdgeList } from "./adjacency.ts";
import { buildLouvainGraph } from "./louvain-graph.ts";

/** Communities smaller than this are "unclustered" (../shared/notes/EXTENSIONS.md §2.5). */
export const MIN_CLUSTER_SIZE = 3;
/** Louvain's seed: the same graph gives the same clusters on every run and every machine. */
const SEED = 0x6b697468;

/**
 * Clusters of the contact graph: graphology's multi-level Louvain (resolution 1, weighted, seeded,
 * nodes inserted in index order), then each community split into its connected components
 * (Louvain can return internally disconnected communities, the flaw Leiden fixes and graphology
 * has not published), and components smaller than MIN_CLUSTER_SIZE dropped. Returns the cluster
 * index of each node (-1: unclustered), clusters numbered by their smallest member. `graph` is
 * the graphology form of `g` (internal/louvain-graph.ts), kept by the Worker between runs.
 */
export function findCommunities(g: Adjacency, edges: EdgeList, graph: Graph = buildLouvainGraph(g, edges).graph): Int32Array {
  const { n, start, adj } = g;
  const community = new Int32Array(n).fill(-1);
  if (graph.order === 0) return community;
  const found = louvain(graph, { getEdgeWeight: "weight", resolution: 1, rng: seededRng(SEED) });
  for (const [key, c] of Object.entries(found)) community[Number(key)] = c;

  // Connected components inside each community (a BFS that only follows same-community ties).
  const cluster = new Int32Array(n).fill(-1);
  const queue = new Int32Array(n);
  const members: number[] = [];
  let next = 0;
  for (let s = 0; s < n; s++) {
    if (community[s] === -1 || cluster[s] !== -1) continue;
    members.length = 0;
    cluster[s] = next;
    let head = 0;
    let tail = 0;
    queue[tail++] = s;
    while (head < tail) {
      const v = queue[head++]!;
      members.push(v);
      for (let k = start[v]!; k < start[v + 1]!; k++) {
        const w = adj[k]!;
        if (cluster[w] === -1 && community[w] === community[s]) {
          cluster[w] = next;
          queue[tail++] = w;
        }
      }
    }
    if (members.length < MIN_CLUSTER_SIZE) for (const v of members) cluster[v] = -2;
    else next++;
  }
  for (let v = 0; v < n; v++) if (cluster[v] === -2) cluster[v] = -1;
  return cluster;
}

/** mulberry32: a small, well-mixed 32-bit generator; Louvain only needs a reproducible stream. */
export function seededRng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
