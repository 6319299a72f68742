import type { Adjacency } from "./adjacency.ts";

/** One side of a cluster pair that a single contact holds alone. */
export interface SoleLink {
  /** The connector's own cluster and the other one (cluster indices). */
  from: number;
  to: number;
  /** Ties between the two clusters (all of them end at the connector on its side). */
  edgesBetween: number;
}

/**
 * Sole connectors (../shared/notes/EXTENSIONS.md §2.5): contact v in cluster A is the sole
 * connector from A to B when the ties between A and B exist and every one of them has v as its
 * A-side end. One pass over the edges keeps, per ordered cluster pair, the only A-side end seen so
 * far (or "several"); both ends of a single tie are therefore sole connectors. Returns the links
 * of each node that has any.
 */
export function soleConnectors(g: Adjacency, cluster: Int32Array): Map<number, SoleLink[]> {
  const { n, start, adj } = g;
  const SEVERAL = -1;
  const side = new Map<number, number>(); // (A * C + B) → the A-side end, or SEVERAL
  const count = new Map<number, number>();
  let clusters = 0;
  for (let v = 0; v < n; v++) if (cluster[v]! + 1 > clusters) clusters = cluster[v]! + 1;
  for (let v = 0; v < n; v++) {
    const a = cluster[v]!;
    if (a < 0) continue;
    for (let k = start[v]!; k < start[v + 1]!; k++) {
      const b = cluster[adj[k]!]!;
      if (b < 0 || b === a) continue;
      const key = a * clusters + b;
      const seen = side.get(key);
      side.set(key, seen === undefined || seen === v ? v : SEVERAL);
      count.set(key, (count.get(key) ?? 0) + 1);
    }
  }
  const out = new Map<number, SoleLink[]>();
  for (const [key, v] of side) {
    if (v === SEVERAL) continue;
    const link = { from: Math.floor(key / clusters), to: key % clusters, edgesBetween: count.get(key)! };
    const list = out.get(v);
    if (list) list.push(link);
    else out.set(v, [link]);
  }
  for (const list of out.values()) list.sort((x, y) => x.to - y.to);
  return out;
}
