import Graph from "graphology";
import type { Adjacency, EdgeList } from "./adjacency.ts";

/**
 * The graphology graph Louvain runs on, built in one pass with keys made up front: node `v` is
 * "v", edge `i` is "i" (addUndirectedEdgeWithKey skips graphology's key generator, a third of the
 * build), one `{weight}` object per edge and none per node. Louvain reads only the node order, the
 * edge order and the weights (graphology-indices' UndirectedLouvainIndex), so the keys do not move
 * a result: contacts with a tie in index order, edges in list order, as before.
 */
export function buildLouvainGraph(g: Adjacency, edges: EdgeList): { graph: Graph; weights: Array<{ weight: number }> } {
  const { n, start } = g;
  const graph = new Graph({ type: "undirected", multi: false, allowSelfLoops: false });
  const keys: string[] = new Array(n);
  for (let v = 0; v < n; v++) {
    if (start[v + 1]! === start[v]!) continue;
    keys[v] = String(v);
    graph.addNode(keys[v]);
  }
  const m = edges.a.length;
  const weights: Array<{ weight: number }> = new Array(m);
  for (let i = 0; i < m; i++) {
    weights[i] = { weight: edges.w[i]! };
    graph.addUndirectedEdgeWithKey(String(i), keys[edges.a[i]!]!, keys[edges.b[i]!]!, weights[i]);
  }
  return { graph, weights };
}

/**
 * Keeps the last graph between recomputes (the Worker lives on; notes/EXTENSIONS.md §2.4). When the
 * contacts and the tie pairs are exactly those of last time (the common case: the hourly recompute
 * where only the decay of message ties moved the weights), the graph is reused and only its
 * weights are written; any other change rebuilds it, so node and edge order, and hence Louvain's
 * result, are always those of a fresh build.
 */
export function createLouvainGraphCache(): (ids: string[], g: Adjacency, edges: EdgeList) => Graph {
  let last: { ids: string[]; a: Int32Array; b: Int32Array; graph: Graph; weights: Array<{ weight: number }> } | null = null;
  return (ids, g, edges) => {
    if (last && sameStrings(last.ids, ids) && sameInts(last.a, edges.a) && sameInts(last.b, edges.b)) {
      for (let i = 0; i < edges.w.length; i++) last.weights[i]!.weight = edges.w[i]!;
      return last.graph;
    }
    const built = buildLouvainGraph(g, edges);
    last = { ids, a: edges.a.slice(), b: edges.b.slice(), ...built };
    return built.graph;
  };
}

function sameStrings(x: string[], y: string[]): boolean {
  if (x.length !== y.length) return false;
  for (let i = 0; i < x.length; i++) if (x[i] !== y[i]) return false;
  return true;
}

function sameInts(x: Int32Array, y: Int32Array): boolean {
  if (x.length !== y.length) return false;
  for (let i = 0; i < x.length; i++) if (x[i] !== y[i]) return false;
  return true;
}
