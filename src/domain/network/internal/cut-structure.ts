import type { Adjacency } from "./adjacency.ts";

/** What removing one contact or one tie would disconnect. */
export interface CutStructure {
  /** 1 when removing the node disconnects its connected component (an articulation point). */
  articulation: Uint8Array;
  /** 1 for each edge index whose removal disconnects its component (a bridge edge). */
  bridgeEdge: Uint8Array;
}

/**
 * Articulation points and bridge edges (Hopcroft–Tarjan lowpoints) in O(n + m), iteratively: an
 * explicit stack instead of recursion, because a path of 10k contacts would overflow the call
 * stack. No maintained JS graph library has this except cytoscape (a UI library, ~400× slower;
 * ../shared/notes/EXTENSIONS.md §2.4), which the tests use as the independent oracle. Edges are
 * unique pairs, so the parent edge is skipped by its index, not by its endpoint.
 */
export function cutStructure(g: Adjacency, edgeCount: number): CutStructure {
  const { n, start, adj, edgeOf } = g;
  const disc = new Int32Array(n).fill(-1);
  const low = new Int32Array(n);
  const parentEdge = new Int32Array(n).fill(-1);
  const cursor = new Int32Array(n);
  const childCount = new Int32Array(n);
  const stack = new Int32Array(n);
  const articulation = new Uint8Array(n);
  const bridgeEdge = new Uint8Array(edgeCount);
  let time = 0;
  for (let root = 0; root < n; root++) {
    if (disc[root] !== -1) continue;
    let top = 0;
    stack[0] = root;
    disc[root] = low[root] = time++;
    cursor[root] = start[root]!;
    while (top >= 0) {
      const v = stack[top]!;
      if (cursor[v]! < start[v + 1]!) {
        const k = cursor[v]!++;
        const e = edgeOf[k]!;
        if (e === parentEdge[v]) continue;
        const w = adj[k]!;
        if (disc[w] === -1) {
          parentEdge[w] = e;
          disc[w] = low[w] = time++;
          cursor[w] = start[w]!;
          childCount[v]!++;
          stack[++top] = w;
        } else if (disc[w]! < low[v]!) low[v] = disc[w]!;
        continue;
      }
      // v is finished: hand its lowpoint to its parent and judge the tie between them.
      top--;
      if (top < 0) break;
      const p = stack[top]!;
      if (low[v]! < low[p]!) low[p] = low[v]!;
      if (low[v]! > disc[p]!) bridgeEdge[parentEdge[v]!] = 1;
      if (p !== root && low[v]! >= disc[p]!) articulation[p] = 1;
    }
    if (childCount[root]! > 1) articulation[root] = 1;
  }
  return { articulation, bridgeEdge };
}
