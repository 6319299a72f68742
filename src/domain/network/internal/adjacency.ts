/**
 * The contact graph as the algorithms read it: nodes are indices 0..n-1 (contacts in id order, so
 * every run sees the same order), edges unique unordered pairs with a weight, adjacency in CSR form
 * (compressed rows: the neighbours of v are `adj[start[v]..start[v+1])`, `edgeOf` the edge index).
 */
export interface Adjacency {
  n: number;
  start: Int32Array;
  adj: Int32Array;
  edgeOf: Int32Array;
}

/** Edge list: endpoints `a[i]`, `b[i]` (a ≠ b, each pair once) and weight `w[i]`. */
export interface EdgeList {
  a: Int32Array;
  b: Int32Array;
  w: Float64Array;
}

/** CSR adjacency of the edges `keep` accepts (all by default): one pass to count, one to fill. */
export function buildAdjacency(n: number, edges: EdgeList, keep: (i: number) => boolean = () => true): Adjacency {
  const degree = new Int32Array(n + 1);
  const m = edges.a.length;
  for (let i = 0; i < m; i++) {
    if (!keep(i)) continue;
    degree[edges.a[i]!]!++;
    degree[edges.b[i]!]!++;
  }
  const start = new Int32Array(n + 1);
  for (let v = 0; v < n; v++) start[v + 1] = start[v]! + degree[v]!;
  const fill = start.slice(0, n);
  const adj = new Int32Array(start[n]!);
  const edgeOf = new Int32Array(start[n]!);
  for (let i = 0; i < m; i++) {
    if (!keep(i)) continue;
    const a = edges.a[i]!;
    const b = edges.b[i]!;
    adj[fill[a]!] = b;
    edgeOf[fill[a]!++] = i;
    adj[fill[b]!] = a;
    edgeOf[fill[b]!++] = i;
  }
  return { n, start, adj, edgeOf };
}
