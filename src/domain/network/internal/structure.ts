import type { EdgeList } from "./adjacency.ts";

/** Bumped when the analysis changes meaning: a snapshot of another version is recomputed, never served. */
export const ALGO_VERSION = 1;

/** The contact graph as loaded from the database: contact ids in id order, ties between them. */
export interface GraphInput {
  ids: string[];
  edges: EdgeList;
}

/**
 * The analysis of the whole graph (what the Worker returns and a snapshot stores): clusters with
 * stable ids, and the structural facts of the unfiltered graph (the owner's view). Installations
 * get views recomputed over their visible contacts (internal/network-view.ts).
 */
export interface NetworkStructure {
  graphVersion: string;
  algoVersion: number;
  ids: string[];
  edges: EdgeList;
  /** Cluster index per contact, -1 unclustered. */
  cluster: Int32Array;
  /** Cluster index → stable id. */
  clusterIds: string[];
  articulation: Uint8Array;
  bridgeEdge: Uint8Array;
  /** Sole connectors: [contact, fromCluster, toCluster, edgesBetween]. */
  sole: Array<[number, number, number, number]>;
}

/** JSON form stored in `network_snapshots.payload_json`. */
export function structureToJson(s: NetworkStructure): string {
  return JSON.stringify({
    ...s,
    edges: { a: Array.from(s.edges.a), b: Array.from(s.edges.b), w: Array.from(s.edges.w) },
    cluster: Array.from(s.cluster),
    articulation: Array.from(s.articulation),
    bridgeEdge: Array.from(s.bridgeEdge),
  });
}

/** Reads a stored snapshot back; null when it is not one this code wrote (corrupt or foreign). */
export function structureFromJson(json: string): NetworkStructure | null {
  try {
    const o = JSON.parse(json);
    if (!o || !Array.isArray(o.ids) || !o.edges || !Array.isArray(o.clusterIds) || !Array.isArray(o.sole)) return null;
    return {
      ...o,
      edges: { a: Int32Array.from(o.edges.a), b: Int32Array.from(o.edges.b), w: Float64Array.from(o.edges.w) },
      cluster: Int32Array.from(o.cluster),
      articulation: Uint8Array.from(o.articulation),
      bridgeEdge: Uint8Array.from(o.bridgeEdge),
    };
  } catch {
    return null;
  }
}
