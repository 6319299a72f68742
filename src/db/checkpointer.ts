import type { Database } from "bun:sqlite";
import type { CheckpointReply, CheckpointRequest } from "./checkpoint-worker.ts";

/** Group-commit jobs between two background checkpoints (~3.6 WAL frames each for an inbound intent). */
const JOBS_PER_CHECKPOINT = 1_024;
/**
 * The connection's own automatic checkpoint while the Worker runs: a fallback, rarely reached (a
 * checkpoint the Worker ran while writes went on leaves the WAL to be restarted by the next one).
 */
const FALLBACK_AUTOCHECKPOINT = 4_000;
const SQLITE_DEFAULT_AUTOCHECKPOINT = 1_000;

const ENTRY = import.meta.url.includes("/$bunfs/") ? new URL("./db/checkpoint-worker.ts", import.meta.url).href : new URL("./checkpoint-worker.ts", import.meta.url).href;

export interface Checkpointer {
  /** A group commit of `jobs` writes was committed. */
  committed(jobs: number): void;
  /** Ends the Worker after the checkpoint in progress, and gives the connection its own checkpoints back. */
  close(): Promise<void>;
  /** Checkpoints the Worker ran, and whether it is given up (tests, the benchmark). */
  readonly stats: { runs: number; failed: boolean };
}

/**
 * WAL checkpoints off the event loop (issue 18). SQLite checkpoints inside the COMMIT that takes the
 * WAL past `wal_autocheckpoint` pages (1,000): it copies those pages into the database file and
 * fsyncs twice on the thread that committed — the event loop — every few hundred inbound intents.
 * Once the group commit has seen JOBS_PER_CHECKPOINT writes, a Worker with its own connection
 * starts and runs a PASSIVE checkpoint every JOBS_PER_CHECKPOINT writes (copying while the main
 * thread goes on; PASSIVE never takes the writer's lock), and the main connection's automatic
 * checkpoint moves to FALLBACK_AUTOCHECKPOINT pages. A node at rest never starts the Worker. A
 * Worker that fails gives the connection its default back. Durability is SQLite's own: a checkpoint
 * only copies committed frames, after syncing the WAL (docs/decisions/inbound-performance.md).
 */
export function createCheckpointer(
  sqlite: Database,
  file: string,
  options: { entry?: string; jobsPerCheckpoint?: number; onFailure?: (reason: string) => void } = {},
): Checkpointer {
  const every = options.jobsPerCheckpoint ?? JOBS_PER_CHECKPOINT;
  let worker: Worker | null = null;
  let since = 0;
  let running = false;
  let closing: Promise<void> | null = null;
  const stats = { runs: 0, failed: false };
  let settle: (() => void) | null = null;

  const ownCheckpoints = (pages: number) => {
    try {
      sqlite.exec(`PRAGMA wal_autocheckpoint = ${pages}`);
    } catch {
      // the database is already closed: nothing left to checkpoint from this connection
    }
  };
  const giveUp = (reason: string) => {
    if (stats.failed) return;
    options.onFailure?.(reason);
    stats.failed = true;
    running = false;
    worker?.terminate();
    worker = null;
    ownCheckpoints(SQLITE_DEFAULT_AUTOCHECKPOINT);
    settle?.();
  };
  const start = (): Worker => {
    const w = new Worker(options.entry ?? ENTRY);
    w.onmessage = (event: MessageEvent<CheckpointReply>) => {
      const reply = event.data;
      if (reply.type === "failed") return giveUp(reply.message);
      running = false;
      if (reply.type === "checkpointed") stats.runs++;
      if (reply.type === "closed" || closing) settle?.();
    };
    w.onerror = (event) => giveUp(event.message);
    w.unref();
    ownCheckpoints(FALLBACK_AUTOCHECKPOINT);
    return w;
  };
  return {
    stats,
    committed(jobs) {
      since += jobs;
      if (running || closing || stats.failed || since < every) return;
      since = 0;
      running = true;
      worker ??= start();
      worker.postMessage({ type: "checkpoint", file } satisfies CheckpointRequest);
    },
    close() {
      closing ??= (async () => {
        const w = worker;
        if (!w) return;
        // Waits for the checkpoint in progress (its reply), then for the Worker's connection to close.
        while (running && !stats.failed) await new Promise<void>((r) => (settle = r));
        if (stats.failed || !worker) return;
        const closed = new Promise<void>((r) => (settle = r));
        w.postMessage({ type: "close" } satisfies CheckpointRequest);
        await closed;
        w.terminate();
        worker = null;
        ownCheckpoints(SQLITE_DEFAULT_AUTOCHECKPOINT);
      })();
      return closing;
    },
  };
}
