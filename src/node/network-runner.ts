import type { Db } from "../db/client.ts";
import type { Logger, NetworkRunner } from "../domain/context.ts";
import type { RecomputeMemory, RecomputeRequest, RecomputeResult } from "../domain/network/recompute-network.ts";

export interface WorkerRequest {
  id: number;
  file: string;
  request: RecomputeRequest;
}
export type WorkerReply = { id: number; ok: true; result: RecomputeResult } | { id: number; ok: false; message: string };

/** A runner the node can stop; `lastTimings` is what the last Worker run measured (the benchmark reads it). */
export interface ClosableNetworkRunner extends NetworkRunner {
  readonly mode: "worker" | "inline";
  lastTimings: RecomputeResult["timings"] | null;
  close(): void;
}

/**
 * Where the network analysis runs. A database file: in a Worker (src/node/network-worker.ts),
 * started on the first run, never at start-up (a node that never asks for analytics loads neither
 * the Worker nor graphology). An in-memory database (the Worker cannot open it): in process,
 * loaded on first use too. A Worker that dies is replaced on the next run.
 */
export function createNetworkRunner(db: Db, log: Logger, opts: { inline?: boolean } = {}): ClosableNetworkRunner {
  const file = db.$client.filename;
  if (opts.inline || !file || file === ":memory:") return inlineRunner(db);
  let worker: Worker | null = null;
  let seq = 0;
  const pending = new Map<number, { resolve: (r: WorkerReply) => void; reject: (e: Error) => void }>();
  const fail = (e: Error) => {
    for (const p of pending.values()) p.reject(e);
    pending.clear();
    worker?.terminate();
    worker = null;
  };
  const start = (): Worker => {
    const w = new Worker(workerUrl());
    w.onmessage = (event: MessageEvent<WorkerReply>) => {
      const p = pending.get(event.data.id);
      pending.delete(event.data.id);
      p?.resolve(event.data);
    };
    w.onerror = (event) => {
      log.error("network worker failed", { message: event.message });
      fail(new Error(`network worker failed: ${event.message}`));
    };
    w.unref();
    return w;
  };
  const runner: ClosableNetworkRunner = {
    mode: "worker",
    lastTimings: null,
    async compute(request) {
      worker ??= start();
      const id = ++seq;
      const reply = await new Promise<WorkerReply>((resolve, reject) => {
        pending.set(id, { resolve, reject });
        worker!.postMessage({ id, file, request } satisfies WorkerRequest);
      });
      if (!reply.ok) throw new Error(`network analysis failed: ${reply.message}`);
      runner.lastTimings = reply.result.timings;
      return reply.result;
    },
    close: () => fail(new Error("the network runner is closed")),
  };
  return runner;
}

function inlineRunner(db: Db): ClosableNetworkRunner {
  const memory: RecomputeMemory = {};
  const runner: ClosableNetworkRunner = {
    mode: "inline",
    lastTimings: null,
    async compute(request) {
      const { recomputeNetwork } = await import("../domain/network/recompute-network.ts");
      const result = recomputeNetwork(db, request, () => performance.now(), memory);
      runner.lastTimings = result.timings;
      return result;
    },
    close() {},
  };
  return runner;
}

/**
 * Where the Worker's entry is: beside this file when run from source; inside a compiled binary,
 * import.meta.url is the binary itself at the bundle's root (/$bunfs/root/kith-…) and the second
 * entrypoint sits at node/network-worker (scripts/build.ts), so it is resolved from there.
 */
function workerUrl(): string {
  const compiled = import.meta.url.includes("$bunfs");
  return new URL(compiled ? "./node/network-worker.ts" : "./network-worker.ts", import.meta.url).href;
}
