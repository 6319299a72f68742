// The network analytics Worker (domain/network/analyze-network.ts off the event loop). Its own
// read-only connection to the node's SQLite file (WAL: it never blocks the writer) reads the
// contact graph; the analysis goes back as typed arrays (transferred, not copied) plus the JSON the
// snapshot row stores. scripts/build.ts compiles it as a second entrypoint of the binary.
import { openDatabase, type Db } from "../db/client.ts";
import { analyzeNetwork } from "../domain/network/analyze-network.ts";
import type { WorkerRequest, WorkerReply } from "./network-runner.ts";

declare const self: Worker;
let db: Db | null = null;
let dbFile = "";

self.onmessage = (event: MessageEvent<WorkerRequest>) => {
  const { id, file, request } = event.data;
  try {
    if (!db || dbFile !== file) {
      db = openDatabase(file, { readonly: true });
      dbFile = file;
    }
    const result = analyzeNetwork(db, request, () => performance.now());
    const s = result.structure;
    self.postMessage({ id, ok: true, result } satisfies WorkerReply, [s.edges.a.buffer, s.edges.b.buffer, s.edges.w.buffer, s.cluster.buffer, s.articulation.buffer, s.bridgeEdge.buffer] as ArrayBuffer[]);
  } catch (e) {
    self.postMessage({ id, ok: false, message: e instanceof Error ? e.message : String(e) } satisfies WorkerReply);
  }
};
