// The network analytics Worker (domain/network/recompute-network.ts off the event loop). Its own
// connection to the node's SQLite file reads the contact graph and stores the snapshot with its
// events (WAL: readers never wait; a write of the main thread waits at most for that one
// transaction); the analysis goes back as typed arrays (copies transferred: the Worker keeps the
// originals as the previous snapshot of its next run, with the graph it analysed).
// scripts/build.ts compiles it as a second entrypoint of the binary.
import { openDatabase, type Db } from "../db/client.ts";
import { recomputeNetwork, type RecomputeMemory } from "../domain/network/recompute-network.ts";
import type { WorkerRequest, WorkerReply } from "./network-runner.ts";

declare const self: Worker;
let db: Db | null = null;
let dbFile = "";
let memory: RecomputeMemory = {};

self.onmessage = (event: MessageEvent<WorkerRequest>) => {
  const { id, file, request } = event.data;
  try {
    if (!db || dbFile !== file) {
      db = openDatabase(file);
      dbFile = file;
      memory = {};
    }
    const result = recomputeNetwork(db, request, () => performance.now(), memory);
    if (result.outcome !== "recomputed") return self.postMessage({ id, ok: true, result } satisfies WorkerReply);
    const s = result.structure;
    const copy = { ...s, edges: { a: s.edges.a.slice(), b: s.edges.b.slice(), w: s.edges.w.slice() }, cluster: s.cluster.slice(), articulation: s.articulation.slice(), bridgeEdge: s.bridgeEdge.slice() };
    const buffers = [copy.edges.a.buffer, copy.edges.b.buffer, copy.edges.w.buffer, copy.cluster.buffer, copy.articulation.buffer, copy.bridgeEdge.buffer] as ArrayBuffer[];
    self.postMessage({ id, ok: true, result: { ...result, structure: copy } } satisfies WorkerReply, buffers);
  } catch (e) {
    self.postMessage({ id, ok: false, message: e instanceof Error ? e.message : String(e) } satisfies WorkerReply);
  }
};
