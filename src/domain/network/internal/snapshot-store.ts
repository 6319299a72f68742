import { desc, eq, lt } from "drizzle-orm";
import type { Db, Tx } from "../../../db/client.ts";
import { networkSnapshots } from "../../../db/schema/index.ts";
import { recordEvent } from "../../internal/events.ts";
import type { AudienceChange } from "./audience-changes.ts";
import type { SnapshotMeta } from "./state.ts";
import { structureFromJson, type NetworkStructure } from "./structure.ts";

const META = {
  id: networkSnapshots.id,
  graphVersion: networkSnapshots.graphVersion,
  algoVersion: networkSnapshots.algoVersion,
  changeKey: networkSnapshots.changeKey,
  computedAt: networkSnapshots.computedAt,
};

/** The stored snapshot's row without its payload (a restart decides from it whether to recompute). */
export function readSnapshotMeta(db: Db): SnapshotMeta | null {
  return db.select(META).from(networkSnapshots).orderBy(desc(networkSnapshots.id)).limit(1).get() ?? null;
}

export function readSnapshotStructure(db: Db, id: number): NetworkStructure | null {
  const row = db.select({ payload: networkSnapshots.payloadJson }).from(networkSnapshots).where(eq(networkSnapshots.id, id)).get();
  return row ? structureFromJson(row.payload) : null;
}

/**
 * Stores a new analysis and drops older ones, with the events it causes (notes §3.2):
 * `cluster.recomputed` when a cluster's membership changed (ids of those that changed, appeared or
 * went), `bridge.changed` when the connectors or articulation points changed.
 */
export function saveSnapshot(tx: Tx, s: NetworkStructure, json: string, changeKey: string, at: number, before: NetworkStructure | null, audiences: AudienceChange[]): SnapshotMeta {
  const row = tx
    .insert(networkSnapshots)
    .values({ graphVersion: s.graphVersion, algoVersion: s.algoVersion, changeKey, computedAt: at, payloadJson: json })
    .returning(META)
    .get();
  tx.delete(networkSnapshots).where(lt(networkSnapshots.id, row.id)).run();
  // top level: the owner's (unfiltered) view; `audiences`: what each set of granted layers sees
  // change, the only part the extension feed shows, and only to installations with those layers
  const graphVersion = s.graphVersion;
  const changed = changedClusters(before, s);
  const clusterAudiences = Object.fromEntries(audiences.filter((a) => a.changedClusterIds.length > 0).map((a) => [a.key, { graphVersion, changedClusterIds: a.changedClusterIds }]));
  if (changed.length > 0 || Object.keys(clusterAudiences).length > 0) recordEvent(tx, "cluster.recomputed", at, { graphVersion, changedClusterIds: changed, audiences: clusterAudiences });
  const bridgeAudiences = Object.fromEntries(audiences.filter((a) => a.bridgesChanged).map((a) => [a.key, { graphVersion }]));
  if (!before || bridgeFacts(before) !== bridgeFacts(s) || Object.keys(bridgeAudiences).length > 0) recordEvent(tx, "bridge.changed", at, { graphVersion, audiences: bridgeAudiences });
  return row;
}

/** The same graph again: only what the database looked like and when it was checked move. */
export function touchSnapshot(tx: Tx, id: number, changeKey: string, at: number): SnapshotMeta {
  return tx.update(networkSnapshots).set({ changeKey, computedAt: at }).where(eq(networkSnapshots.id, id)).returning(META).get()!;
}

function membership(s: NetworkStructure | null): Map<string, string> {
  const out = new Map<string, string[]>();
  if (s) for (let v = 0; v < s.ids.length; v++) if (s.cluster[v]! >= 0) (out.get(s.clusterIds[s.cluster[v]!]!) ?? out.set(s.clusterIds[s.cluster[v]!]!, []).get(s.clusterIds[s.cluster[v]!]!)!).push(s.ids[v]!);
  return new Map([...out].map(([id, m]) => [id, m.join(",")]));
}

function changedClusters(before: NetworkStructure | null, after: NetworkStructure): string[] {
  const a = membership(before);
  const b = membership(after);
  const ids = new Set([...a.keys(), ...b.keys()]);
  return [...ids].filter((id) => a.get(id) !== b.get(id)).sort();
}

function bridgeFacts(s: NetworkStructure): string {
  const cut = s.ids.filter((_, v) => s.articulation[v] === 1).join(",");
  const sole = s.sole.map(([v, f, t]) => `${s.ids[v]}>${s.clusterIds[f]}>${s.clusterIds[t]}`).join(",");
  return `${cut}|${sole}`;
}
