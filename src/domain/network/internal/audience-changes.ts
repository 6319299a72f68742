import type { DunbarLayer } from "../../relationships/names.ts";
import type { ContactFacts } from "./contact-facts.ts";
import { buildView, type NetworkView } from "./network-view.ts";
import type { NetworkStructure } from "./structure.ts";

/** What one audience (a set of granted layers) would see change between two analyses. */
export interface AudienceChange {
  key: string;
  changedClusterIds: string[];
  bridgesChanged: boolean;
}

/**
 * For each audience, the clusters and connectors as it sees them before and after, compared with
 * today's contact facts on both sides: an event tells an installation only what changed in what it
 * can see (a change among hidden contacts alone is no event for it). The views of `after` go into
 * `afterViews` when given: the reads then start from them (see recompute-network.ts).
 */
export function audienceChanges(before: NetworkStructure | null, after: NetworkStructure, facts: Map<string, ContactFacts>, keys: string[], afterViews?: Map<string, NetworkView>): AudienceChange[] {
  return keys.map((key) => {
    const layers = new Set(key.split(",").filter(Boolean) as DunbarLayer[]);
    const b = before ? digest(before, buildView(before, facts, layers)) : { clusters: new Map<string, string>(), bridges: "" };
    const view = buildView(after, facts, layers);
    afterViews?.set(key, view);
    const a = digest(after, view);
    const ids = new Set([...b.clusters.keys(), ...a.clusters.keys()]);
    return { key, changedClusterIds: [...ids].filter((id) => b.clusters.get(id) !== a.clusters.get(id)).sort(), bridgesChanged: b.bridges !== a.bridges };
  });
}

function digest(s: NetworkStructure, v: NetworkView): { clusters: Map<string, string>; bridges: string } {
  const clusters = new Map(v.clusters.map(({ id, members, ...numbers }) => [id, JSON.stringify([members.map((m) => s.ids[m]).sort(), numbers])]));
  const bridges: string[] = [];
  for (let x = 0; x < s.ids.length; x++) {
    if (!v.visible[x]) continue;
    const links = (v.sole.get(x) ?? []).map((l) => `${s.clusterIds[l.from]}>${s.clusterIds[l.to]}:${l.edgesBetween}`);
    if (links.length || v.articulation[x] || v.bridgeEnds[x]) bridges.push(`${s.ids[x]}|${links.join(";")}|${v.articulation[x]}|${v.bridgeEnds[x]}`);
  }
  return { clusters, bridges: bridges.sort().join("\n") };
}
