// The WAL checkpointer's Worker (src/db/checkpointer.ts): its own connection to the node's SQLite
// file, on which it runs PASSIVE checkpoints when asked, so that copying WAL frames into the
// database file and its two fsyncs happen off the event loop. scripts/build.ts compiles it as an
// entry point of the binary.
import { Database } from "bun:sqlite";
import { readlinkSync } from "node:fs";
import { getPriority, setPriority } from "node:os";

export type CheckpointRequest = { type: "checkpoint"; file: string } | { type: "close" };
export type CheckpointReply = { type: "checkpointed"; busy: number; log: number; checkpointed: number } | { type: "closed" } | { type: "failed"; message: string };

declare const self: Worker;
let db: Database | null = null;

/**
 * This thread 10 nice steps below the node (Linux: a thread's own priority; /proc/thread-self names
 * it; relative, so a node already started under `nice` keeps its checkpoints below it). On one core
 * a checkpoint (copying a few MB, ~10-30 ms of CPU) otherwise takes half the core from the event
 * loop while it runs; at nice 10 the event loop keeps ~90% of a contended core and the checkpoint
 * runs in its idle time, which at 1,000 intents/s is a third of it (issue 18). Elsewhere: unchanged.
 */
export const CHECKPOINT_NICE = 10;
try {
  const thread = Number(readlinkSync("/proc/thread-self").split("/").pop());
  setPriority(thread, Math.min(19, getPriority(thread) + CHECKPOINT_NICE));
} catch {
  // not Linux, or not allowed: the checkpoint runs at the node's own priority
}

self.onmessage = (event: MessageEvent<CheckpointRequest>) => {
  const m = event.data;
  try {
    if (m.type === "close") {
      db?.close();
      db = null;
      return self.postMessage({ type: "closed" } satisfies CheckpointReply);
    }
    if (!db) {
      db = new Database(m.file, { readwrite: true });
      // Opening may meet a lock held for a moment (WAL-index recovery); this thread can wait.
      db.exec("PRAGMA busy_timeout = 5000");
      // FULL: the WAL is fsynced before its frames are copied, the database file after (SQLite's rule
      // for checkpoints at synchronous >= NORMAL); PASSIVE never waits for a lock.
      db.exec("PRAGMA synchronous = FULL");
    }
    const r = db.query<{ busy: number; log: number; checkpointed: number }, []>("PRAGMA wal_checkpoint(PASSIVE)").get()!;
    self.postMessage({ type: "checkpointed", busy: r.busy, log: r.log, checkpointed: r.checkpointed } satisfies CheckpointReply);
  } catch (e) {
    self.postMessage({ type: "failed", message: e instanceof Error ? e.message : String(e) } satisfies CheckpointReply);
  }
};
