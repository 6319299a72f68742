import { DUNBAR_LAYERS, type DunbarLayer } from "../../relationships/names.ts";
import { buildAdjacency } from "./adjacency.ts";
import type { ContactFacts } from "./contact-facts.ts";
import { cutStructure } from "./cut-structure.ts";
import { soleConnectors, type SoleLink } from "./sole-connectors.ts";
import type { NetworkStructure } from "./structure.ts";

/** One cluster as one audience sees it: every number over the members it may see. */
export interface ClusterView {
  id: string;
  label: string;
  size: number;
  layerCounts: Partial<Record<DunbarLayer, number>>;
  /** Ties inside / possible ties inside, and ties inside / all ties of its members (visible ties only). */
  density: number;
  cohesion: number;
  topContexts: Array<{ context: string; count: number }>;
  members: number[];
}

/** The analysis seen through a set of layers (all five for the owner). */
export interface NetworkView {
  layers: ReadonlySet<DunbarLayer>;
  visible: Uint8Array;
  /** Ties whose two ends are visible. */
  keep: Uint8Array;
  clusters: ClusterView[];
  clusterIndex: Map<string, number>;
  articulation: Uint8Array;
  bridgeEdge: Uint8Array;
  /** 1 for a contact at an end of a visible bridge edge. */
  bridgeEnds: Uint8Array;
  sole: Map<number, SoleLink[]>;
}

/**
 * Filters at read time (../shared/notes/EXTENSIONS.md §2.6): contacts outside `layers` vanish with
 * their ties, sizes, layer counts, density, cohesion and labels count visible members only,
 * clusters with no visible member are left out, and articulation points, bridge edges and sole
 * connectors are recomputed on the visible graph, so no number moves because of a hidden contact
 * (a contact that is a cut only thanks to hidden ones would otherwise give them away). Cluster
 * membership itself comes from the full graph.
 */
export function buildView(s: NetworkStructure, facts: Map<string, ContactFacts>, layers: ReadonlySet<DunbarLayer>): NetworkView {
  const n = s.ids.length;
  const visible = new Uint8Array(n);
  for (let v = 0; v < n; v++) {
    const f = facts.get(s.ids[v]!);
    visible[v] = f && layers.has(f.layer) ? 1 : 0;
  }
  const m = s.edges.a.length;
  const keep = new Uint8Array(m);
  for (let i = 0; i < m; i++) keep[i] = visible[s.edges.a[i]!]! & visible[s.edges.b[i]!]!;
  const everyone = visible.every((x) => x === 1);
  let articulation = s.articulation;
  let bridgeEdge = s.bridgeEdge;
  let sole: Map<number, SoleLink[]>;
  if (everyone) {
    sole = new Map();
    for (const [v, from, to, edgesBetween] of s.sole) (sole.get(v) ?? sole.set(v, []).get(v)!).push({ from, to, edgesBetween });
  } else {
    const g = buildAdjacency(n, s.edges, (i) => keep[i] === 1);
    ({ articulation, bridgeEdge } = cutStructure(g, m));
    sole = soleConnectors(g, s.cluster.map((c, v) => (visible[v] ? c : -1)));
  }
  const bridgeEnds = new Uint8Array(n);
  for (let i = 0; i < m; i++) if (bridgeEdge[i] && keep[i]) bridgeEnds[s.edges.a[i]!] = bridgeEnds[s.edges.b[i]!] = 1;
  return { layers, visible, keep, ...clusterViews(s, facts, visible, keep), articulation, bridgeEdge, bridgeEnds, sole };
}

function clusterViews(s: NetworkStructure, facts: Map<string, ContactFacts>, visible: Uint8Array, keep: Uint8Array): Pick<NetworkView, "clusters" | "clusterIndex"> {
  const members: number[][] = s.clusterIds.map(() => []);
  for (let v = 0; v < s.ids.length; v++) if (visible[v] && s.cluster[v]! >= 0) members[s.cluster[v]!]!.push(v);
  const inside = new Float64Array(s.clusterIds.length);
  const incident = new Float64Array(s.clusterIds.length);
  for (let i = 0; i < keep.length; i++) {
    if (!keep[i]) continue;
    const ca = s.cluster[s.edges.a[i]!]!;
    const cb = s.cluster[s.edges.b[i]!]!;
    if (ca >= 0 && ca === cb) {
      inside[ca]!++;
      incident[ca]!++;
      continue;
    }
    if (ca >= 0) incident[ca]!++;
    if (cb >= 0) incident[cb]!++;
  }
  const order = members.map((_, c) => c).filter((c) => members[c]!.length > 0);
  order.sort((x, y) => members[y]!.length - members[x]!.length || (s.clusterIds[x]! < s.clusterIds[y]! ? -1 : 1));
  const clusters = order.map((c, ordinal): ClusterView => {
    const list = members[c]!;
    const layerCounts: Partial<Record<DunbarLayer, number>> = {};
    const contexts = new Map<string, number>();
    for (const v of list) {
      const f = facts.get(s.ids[v]!)!;
      layerCounts[f.layer] = (layerCounts[f.layer] ?? 0) + 1;
      if (f.company) contexts.set(f.company, (contexts.get(f.company) ?? 0) + 1);
    }
    const topContexts = [...contexts].map(([context, count]) => ({ context, count })).sort((x, y) => y.count - x.count || (x.context < y.context ? -1 : 1)).slice(0, 3);
    const size = list.length;
    const label = topContexts[0] && topContexts[0].count * 2 >= size ? topContexts[0].context : `Cluster ${ordinal + 1}`;
    return {
      id: s.clusterIds[c]!,
      label,
      size,
      layerCounts: Object.fromEntries(DUNBAR_LAYERS.filter((l) => layerCounts[l]).map((l) => [l, layerCounts[l]])),
      density: size > 1 ? round(inside[c]! / ((size * (size - 1)) / 2)) : 0,
      cohesion: incident[c]! > 0 ? round(inside[c]! / incident[c]!) : 0,
      topContexts,
      members: list,
    };
  });
  const clusterIndex = new Map(order.map((c) => [s.clusterIds[c]!, c]));
  return { clusters, clusterIndex };
}

const round = (x: number) => Math.round(x * 1000) / 1000;
