// The network analytics Worker (domain/network/compute-network.ts off the event loop). Its own
// read-only connection to the node's SQLite file (WAL: it never blocks the writer) reads the
// contact graph; the analysis goes back as typed arrays (transferred, not copied) plus the JSON the
// snapshot row stores. scripts/build.ts compiles it as a second entrypoint of the binary.
import { openDatabase, type Db } from "../db/client.ts";
import { computeNetwork } from "../domain/network/compute-network.ts";
import { structureToJson } from "../domain/network/internal/structure.ts";
import { loadContactGraph } from "../domain/network/load-contact-graph.ts";
import type { WorkerRequest, WorkerReply } from "./network-runner.ts";

declare const self: Worker;
let db: Db | null = null;
let dbFile = "";

self.onmessage = (event: MessageEvent<WorkerRequest>) => {
  const { id, file, now, previous } = event.data;
  try {
    if (!db || dbFile !== file) {
      db = openDatabase(file, { readonly: true });
      dbFile = file;
    }
    const t0 = performance.now();
    const input = loadContactGraph(db, now);
    const t1 = performance.now();
    const structure = computeNetwork(input, previous);
    const t2 = performance.now();
    const json = structureToJson(structure);
    const reply: WorkerReply = { id, ok: true, structure, json, timings: { loadMs: t1 - t0, computeMs: t2 - t1, serializeMs: performance.now() - t2 } };
    const e = structure.edges;
    self.postMessage(reply, [e.a.buffer, e.b.buffer, e.w.buffer, structure.cluster.buffer, structure.articulation.buffer, structure.bridgeEdge.buffer] as ArrayBuffer[]);
  } catch (e) {
    const reply: WorkerReply = { id, ok: false, message: e instanceof Error ? e.message : String(e) };
    self.postMessage(reply);
  }
};
