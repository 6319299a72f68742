import type { Db } from "../../db/client.ts";
import { computeNetwork } from "./compute-network.ts";
import { audienceChanges, type AudienceChange } from "./internal/audience-changes.ts";
import { readContactFacts } from "./internal/contact-facts.ts";
import { readSnapshotStructure } from "./internal/snapshot-store.ts";
import type { PreviousCluster } from "./internal/stable-ids.ts";
import { structureToJson, type NetworkStructure } from "./internal/structure.ts";
import { loadContactGraph } from "./load-contact-graph.ts";

export type { AudienceChange } from "./internal/audience-changes.ts";

/** What a recompute asks for: the time, the snapshot it follows, and the audiences to diff for. */
export interface AnalyzeRequest {
  now: number;
  previousId: number | null;
  audiences: string[];
}

export interface AnalyzeResult {
  structure: NetworkStructure;
  json: string;
  changes: AudienceChange[];
  timings: { loadMs: number; computeMs: number; audiencesMs: number; serializeMs: number };
}

/**
 * One full recompute, from the database as it is now: load the contact graph, analyse it (ids kept
 * from the previous snapshot), diff what each audience sees, serialise the snapshot. CPU-bound:
 * the node runs it in the Worker (src/node/network-worker.ts); `clock` only times the steps.
 */
export function analyzeNetwork(db: Db, request: AnalyzeRequest, clock: () => number): AnalyzeResult {
  const t0 = clock();
  const input = loadContactGraph(db, request.now);
  const before = request.previousId === null ? null : readSnapshotStructure(db, request.previousId);
  const previous: PreviousCluster[] = before ? before.clusterIds.map((id, c) => ({ id, members: before.ids.filter((_, v) => before.cluster[v] === c) })) : [];
  const t1 = clock();
  const structure = computeNetwork(input, previous);
  const t2 = clock();
  const changes = request.audiences.length ? audienceChanges(before, structure, readContactFacts(db), request.audiences) : [];
  const t3 = clock();
  const json = structureToJson(structure);
  return { structure, json, changes, timings: { loadMs: t1 - t0, computeMs: t2 - t1, audiencesMs: t3 - t2, serializeMs: clock() - t3 } };
}
