import { buildAdjacency } from "./internal/adjacency.ts";
import type Graph from "graphology";
import type { Adjacency } from "./internal/adjacency.ts";
import { findCommunities } from "./internal/communities.ts";
import { graphVersionOf } from "./internal/graph-version.ts";
import { cutStructure } from "./internal/cut-structure.ts";
import { soleConnectors } from "./internal/sole-connectors.ts";
import { stableClusterIds, type PreviousCluster } from "./internal/stable-ids.ts";
import { ALGO_VERSION, type GraphInput, type NetworkStructure } from "./internal/structure.ts";

export type { GraphInput, NetworkStructure } from "./internal/structure.ts";
export type { PreviousCluster } from "./internal/stable-ids.ts";

export interface ComputeOptions {
  /** The graphology graph for Louvain (the Worker's cache, reused when only weights moved); by default built afresh. */
  louvainGraph?: (ids: string[], g: Adjacency, edges: GraphInput["edges"]) => Graph;
  /** Already computed by the caller. */
  graphVersion?: string;
  /** Called at the end of each phase (graph, clusters, cuts, sole): the benchmark's breakdown. */
  mark?: (phase: string) => void;
}

/**
 * The full analysis of the contact graph: Louvain clusters (ids kept from `previous` when
 * membership mostly holds), articulation points, bridge edges and sole connectors. Pure and
 * CPU-bound: the node runs it in a Worker (src/node/network-worker.ts), off the event loop.
 */
export function computeNetwork(input: GraphInput, previous: PreviousCluster[], opts: ComputeOptions = {}): NetworkStructure {
  const mark = opts.mark ?? (() => {});
  const n = input.ids.length;
  const g = buildAdjacency(n, input.edges);
  const graph = opts.louvainGraph?.(input.ids, g, input.edges);
  mark("graph");
  const cluster = findCommunities(g, input.edges, graph);
  const members: string[][] = [];
  for (let v = 0; v < n; v++) if (cluster[v]! >= 0) (members[cluster[v]!] ??= []).push(input.ids[v]!);
  const clusterIds = stableClusterIds(members, previous);
  mark("clusters");
  const { articulation, bridgeEdge } = cutStructure(g, input.edges.a.length);
  mark("cuts");
  const sole: NetworkStructure["sole"] = [];
  for (const [v, links] of soleConnectors(g, cluster)) for (const l of links) sole.push([v, l.from, l.to, l.edgesBetween]);
  sole.sort((x, y) => x[0] - y[0] || x[2] - y[2]);
  mark("sole");
  return { graphVersion: opts.graphVersion ?? graphVersionOf(input), algoVersion: ALGO_VERSION, ids: input.ids, edges: input.edges, cluster, clusterIds, articulation, bridgeEdge, sole };
}
