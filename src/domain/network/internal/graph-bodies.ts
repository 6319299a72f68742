import { iso } from "../../internal/iso.ts";
import type { Analytics } from "./analytics.ts";

/** Bands at which a sole connector's tie is fading: bridge risk (notes §2.5). */
const FADING = new Set(["cooling", "at_risk", "dormant"]);

/** What every graph answer starts with: which analysis, when, and whether the database moved on since. */
export function snapshotHeader(a: Analytics) {
  return { graphVersion: a.meta.graphVersion, computedAt: iso(a.meta.computedAt), stale: a.stale };
}

/** `GET …/clusters`: visible clusters, biggest first; member lists only when `members` is allowed. */
export function clustersBody(a: Analytics, opts: { members: boolean; maxMembers?: number }) {
  const { structure: s, facts, view } = a;
  const connector = (v: number) => view.sole.has(v) || view.articulation[v] === 1;
  return {
    ...snapshotHeader(a),
    clusters: view.clusters.map((c) => ({
      clusterId: c.id,
      label: c.label,
      size: c.size,
      layerCounts: c.layerCounts,
      density: c.density,
      cohesion: c.cohesion,
      topContexts: c.topContexts,
      updatedAt: iso(a.meta.computedAt),
      ...(opts.members
        ? {
            members: c.members.slice(0, opts.maxMembers ?? c.members.length).map((v) => ({ contactId: s.ids[v]!, layer: facts.get(s.ids[v]!)!.layer, isConnector: connector(v) })),
            ...(opts.maxMembers !== undefined && c.members.length > opts.maxMembers ? { membersTruncated: true } : {}),
          }
        : {}),
    })),
  };
}

/** One contact's connector facts in a view, or null when it is no connector (visible contacts only). */
export function connectorOf(a: Analytics, v: number) {
  const { structure: s, facts, view } = a;
  const links = view.sole.get(v) ?? [];
  const isArticulationPoint = view.articulation[v] === 1;
  if (!view.visible[v] || (links.length === 0 && !isArticulationPoint)) return null;
  const f = facts.get(s.ids[v]!)!;
  return {
    contactId: s.ids[v]!,
    layer: f.layer,
    band: f.band,
    clusterId: s.cluster[v]! >= 0 ? s.clusterIds[s.cluster[v]!]! : null,
    clusters: links.map((l) => ({ from: s.clusterIds[l.from]!, to: s.clusterIds[l.to]!, edgesBetween: l.edgesBetween })),
    isSoleConnector: links.length > 0,
    isArticulationPoint,
    isOnBridgeEdge: view.bridgeEnds[v] === 1,
    bridgeRisk: links.length > 0 && f.band !== null && FADING.has(f.band),
  };
}

/** `GET …/bridges`: sole connectors and articulation points the audience can see, risky ones first. */
export function bridgesBody(a: Analytics) {
  const rows = [];
  for (let v = 0; v < a.structure.ids.length; v++) {
    const c = connectorOf(a, v);
    if (c) rows.push(c);
  }
  rows.sort((x, y) => Number(y.bridgeRisk) - Number(x.bridgeRisk) || y.clusters.length - x.clusters.length || Number(y.isArticulationPoint) - Number(x.isArticulationPoint) || (x.contactId < y.contactId ? -1 : 1));
  return { ...snapshotHeader(a), bridges: rows, atRisk: rows.filter((r) => r.bridgeRisk).length };
}

/**
 * `GET /api/svc/network/graph`: a drawing of the owner's network, bounded: the `limit` best-tied
 * contacts (degree, then id) with their ties among themselves, each node with its cluster, layer,
 * band and connector flags, each cluster with its label and size.
 */
export function graphBody(a: Analytics, limit: number) {
  const { structure: s, facts, view } = a;
  const degree = new Int32Array(s.ids.length);
  for (let i = 0; i < s.edges.a.length; i++) if (view.keep[i]) degree[s.edges.a[i]!]!++, degree[s.edges.b[i]!]!++;
  const order = s.ids.map((_, v) => v).filter((v) => view.visible[v]);
  order.sort((x, y) => degree[y]! - degree[x]! || x - y);
  const chosen = order.slice(0, limit);
  const shown = new Uint8Array(s.ids.length);
  for (const v of chosen) shown[v] = 1;
  const edges = [];
  for (let i = 0; i < s.edges.a.length; i++) {
    if (view.keep[i] && shown[s.edges.a[i]!] && shown[s.edges.b[i]!]) edges.push({ source: s.ids[s.edges.a[i]!]!, target: s.ids[s.edges.b[i]!]!, weight: Math.round(s.edges.w[i]! * 1000) / 1000, isBridge: view.bridgeEdge[i] === 1 });
  }
  const nodes = chosen.map((v) => {
    const f = facts.get(s.ids[v]!)!;
    const c = connectorOf(a, v);
    return {
      id: s.ids[v]!,
      label: f.name,
      layer: f.layer,
      band: f.band,
      clusterId: s.cluster[v]! >= 0 ? s.clusterIds[s.cluster[v]!]! : null,
      degree: degree[v]!,
      isSoleConnector: c?.isSoleConnector ?? false,
      isArticulationPoint: c?.isArticulationPoint ?? false,
      bridgeRisk: c?.bridgeRisk ?? false,
    };
  });
  return {
    ...snapshotHeader(a),
    totals: { nodes: order.length, edges: view.keep.reduce((acc, k) => acc + k, 0) },
    truncated: order.length > chosen.length,
    nodes,
    edges,
    clusters: view.clusters.map((c) => ({ clusterId: c.id, label: c.label, size: c.size })),
  };
}
