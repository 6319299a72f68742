// The network analytics Worker (domain/network/recompute-network.ts off the event loop). Its own
// connection to the node's SQLite file reads the contact graph and stores the snapshot with its
// events (WAL: readers never wait; a write of the main thread waits at most for that one
// transaction); the analysis goes back as typed arrays (transferred, not copied).
// scripts/build.ts compiles it as a second entrypoint of the binary.
import { openDatabase, type Db } from "../db/client.ts";
import { recomputeNetwork } from "../domain/network/recompute-network.ts";
import type { WorkerRequest, WorkerReply } from "./network-runner.ts";

declare const self: Worker;
let db: Db | null = null;
let dbFile = "";

self.onmessage = (event: MessageEvent<WorkerRequest>) => {
  const { id, file, request } = event.data;
  try {
    if (!db || dbFile !== file) {
      db = openDatabase(file);
      dbFile = file;
    }
    const result = recomputeNetwork(db, request, () => performance.now());
    const s = result.outcome === "recomputed" ? result.structure : null;
    self.postMessage({ id, ok: true, result } satisfies WorkerReply, s ? ([s.edges.a.buffer, s.edges.b.buffer, s.edges.w.buffer, s.cluster.buffer, s.articulation.buffer, s.bridgeEdge.buffer] as ArrayBuffer[]) : []);
  } catch (e) {
    self.postMessage({ id, ok: false, message: e instanceof Error ? e.message : String(e) } satisfies WorkerReply);
  }
};
