import { transaction, type Db } from "../../db/client.ts";
import { computeNetwork } from "./compute-network.ts";
import { graphVersionOf } from "./internal/graph-version.ts";
import { audienceChanges } from "./internal/audience-changes.ts";
import { contactsKey, readContactFacts } from "./internal/contact-facts.ts";
import { createLouvainGraphCache } from "./internal/louvain-graph.ts";
import type { NetworkView } from "./internal/network-view.ts";
import { readSnapshotStructure, saveSnapshot, touchSnapshot } from "./internal/snapshot-store.ts";
import type { SnapshotMeta } from "./internal/state.ts";
import type { PreviousCluster } from "./internal/stable-ids.ts";
import { structureToJson, type NetworkStructure } from "./internal/structure.ts";
import { loadContactGraph } from "./load-contact-graph.ts";

/** What a recompute needs: the time, the change key it answers, the snapshot in force, the audiences to diff for. */
export interface RecomputeRequest {
  now: number;
  changeKey: string;
  previous: { id: number; graphVersion: string } | null;
  audiences: string[];
}

/** Milliseconds: loading the graph (with its content hash and the previous snapshot), analysing it, storing it; `phases` splits the analysis. */
export interface RecomputeTimings {
  loadMs: number;
  computeMs: number;
  storeMs: number;
  phases: Record<string, number>;
}

export type RecomputeResult = { timings: RecomputeTimings } & (
  | { outcome: "recomputed"; meta: SnapshotMeta; structure: NetworkStructure; views: AudienceViews }
  | { outcome: "unchanged"; meta: SnapshotMeta }
);

/**
 * The new analysis as each installed audience sees it, built anyway to find what each sees change:
 * the reads take them as they are (keyed by the contact facts they were built with) instead of
 * building a view on the request path at the first read of each grant.
 */
export interface AudienceViews {
  factsKey: string;
  byAudience: Array<[audience: string, view: NetworkView]>;
}

/**
 * What a long-lived runner (the Worker) keeps between recomputes: the graphology graph (reused when
 * only weights moved) and the snapshot it stored last, so the previous analysis is not parsed back
 * from its ~1.5 MB of JSON. Results never depend on it: it only saves rebuilding the same thing.
 * A runner starts with `{}` and passes the same object to every run.
 */
export interface RecomputeMemory {
  louvainGraph?: ReturnType<typeof createLouvainGraphCache>;
  last?: { id: number; structure: NetworkStructure };
}

/**
 * One full recompute from the database as it is now, stored: load the contact graph, and either
 * note that the graph is the same as the snapshot in force (content hash, checked before any
 * analysis) or analyse it (cluster ids kept from the previous snapshot) and store the new snapshot
 * with its events, what each audience sees change included, in one transaction. CPU-bound and
 * ~1.5 MB to write at 10k contacts: the node runs it in the Worker (src/node/network-worker.ts) on
 * its own connection, so none of it stalls the event loop; `clock` only times the steps.
 */
export function recomputeNetwork(db: Db, request: RecomputeRequest, clock: () => number, memory: RecomputeMemory = {}): RecomputeResult {
  const t0 = clock();
  const input = loadContactGraph(db, request.now);
  const graphVersion = graphVersionOf(input);
  const before = previousStructure(db, request.previous, memory);
  const t1 = clock();
  if (request.previous && before && request.previous.graphVersion === graphVersion) {
    const id = request.previous.id;
    const meta = transaction(db, (tx) => touchSnapshot(tx, id, request.changeKey, request.now));
    return { outcome: "unchanged", meta, timings: { loadMs: t1 - t0, computeMs: 0, storeMs: clock() - t1, phases: {} } };
  }
  const phases: Record<string, number> = {};
  let last = t1;
  const mark = (phase: string) => {
    const t = clock();
    phases[phase] = t - last;
    last = t;
  };
  const structure = computeNetwork(input, previousClusters(before), { louvainGraph: (memory.louvainGraph ??= createLouvainGraphCache()), graphVersion, mark });
  const t2 = clock();
  const afterViews = new Map<string, NetworkView>();
  let factsKey = "";
  const changes = request.audiences.length
    ? db.$client.transaction(() => {
        // the key and the facts from one read transaction: a view is never filed under another version
        factsKey = contactsKey(db);
        return audienceChanges(before, structure, readContactFacts(db), request.audiences, afterViews);
      })()
    : [];
  const json = structureToJson(structure);
  const meta = transaction(db, (tx) => saveSnapshot(tx, structure, json, request.changeKey, request.now, before, changes));
  memory.last = { id: meta.id, structure };
  return { outcome: "recomputed", meta, structure, views: { factsKey, byAudience: [...afterViews] }, timings: { loadMs: t1 - t0, computeMs: t2 - t1, storeMs: clock() - t2, phases } };
}

/** The snapshot in force: the one this runner stored last when it is that one, else read back. */
function previousStructure(db: Db, previous: RecomputeRequest["previous"], memory: RecomputeMemory): NetworkStructure | null {
  if (!previous) return null;
  const last = memory.last;
  if (last && last.id === previous.id && last.structure.graphVersion === previous.graphVersion) return last.structure;
  return readSnapshotStructure(db, previous.id);
}

/** The previous clusters' members, in contact order, in one pass. */
function previousClusters(before: NetworkStructure | null): PreviousCluster[] {
  if (!before) return [];
  const members: string[][] = before.clusterIds.map(() => []);
  for (let v = 0; v < before.ids.length; v++) if (before.cluster[v]! >= 0) members[before.cluster[v]!]!.push(before.ids[v]!);
  return before.clusterIds.map((id, c) => ({ id, members: members[c]! }));
}
