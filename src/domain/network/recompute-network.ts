import { transaction, type Db } from "../../db/client.ts";
import { computeNetwork } from "./compute-network.ts";
import { audienceChanges } from "./internal/audience-changes.ts";
import { readContactFacts } from "./internal/contact-facts.ts";
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

export type RecomputeResult = { timings: { loadMs: number; computeMs: number; storeMs: number } } & (
  | { outcome: "recomputed"; meta: SnapshotMeta; structure: NetworkStructure }
  | { outcome: "unchanged"; meta: SnapshotMeta }
);

/**
 * One full recompute from the database as it is now, stored: load the contact graph, analyse it
 * (cluster ids kept from the previous snapshot), and either note that the graph is the same
 * (content hash) or store the new snapshot with its events, what each audience sees change
 * included, in one transaction. CPU-bound and ~1.5 MB to write at 10k contacts: the node runs it
 * in the Worker (src/node/network-worker.ts) on its own connection, so none of it stalls the event
 * loop; `clock` only times the steps.
 */
export function recomputeNetwork(db: Db, request: RecomputeRequest, clock: () => number): RecomputeResult {
  const t0 = clock();
  const input = loadContactGraph(db, request.now);
  const before = request.previous ? readSnapshotStructure(db, request.previous.id) : null;
  const previous: PreviousCluster[] = before ? before.clusterIds.map((id, c) => ({ id, members: before.ids.filter((_, v) => before.cluster[v] === c) })) : [];
  const t1 = clock();
  const structure = computeNetwork(input, previous);
  const t2 = clock();
  if (request.previous && before && request.previous.graphVersion === structure.graphVersion) {
    const id = request.previous.id;
    const meta = transaction(db, (tx) => touchSnapshot(tx, id, request.changeKey, request.now));
    return { outcome: "unchanged", meta, timings: { loadMs: t1 - t0, computeMs: t2 - t1, storeMs: clock() - t2 } };
  }
  const changes = request.audiences.length ? audienceChanges(before, structure, readContactFacts(db), request.audiences) : [];
  const json = structureToJson(structure);
  const meta = transaction(db, (tx) => saveSnapshot(tx, structure, json, request.changeKey, request.now, before, changes));
  return { outcome: "recomputed", meta, structure, timings: { loadMs: t1 - t0, computeMs: t2 - t1, storeMs: clock() - t2 } };
}
