import type { Database } from "bun:sqlite";
import type { CheckpointReply, CheckpointRequest } from "./checkpoint-worker.ts";

/** Group-commit jobs before the first background checkpoint, and the most between two. */
const JOBS_PER_CHECKPOINT = 1_024;
/**
 * WAL frames one cycle aims at: the next cycle's length in jobs follows the frames per job the last
 * one measured (its long pass reports the WAL's size). A job's frames vary ~6x with batch size:
 * ~3.6 for an inbound intent at saturation (batches share pages), ~22 at 1,000/s in batches of one,
 * where 1,024 jobs made ~90 MB of WAL and crossed the fallback mid-cycle (issue 18).
 */
const TARGET_FRAMES = 4_000;
const MIN_JOBS_PER_CHECKPOINT = 64;
/**
 * The connection's own automatic checkpoint while the Worker runs: a fallback for a Worker that
 * falls behind. It must stay well above what one cycle adds to the WAL (TARGET_FRAMES): at 4,000
 * it was reached every cycle, and then every COMMIT past it checkpointed on the event loop (issue
 * 18, inbound-performance.md "Tail latency").
 */
const FALLBACK_AUTOCHECKPOINT = 16_000;
const SQLITE_DEFAULT_AUTOCHECKPOINT = 1_000;
/**
 * Longest the group commit waits for the last, short pass of a checkpoint (the frames written
 * while the long pass ran). Past it the queue goes on, and the WAL is not restarted this cycle.
 */
const MAX_HOLD_MS = 50;
/**
 * The hold of the cycle after one whose last pass outlasted MAX_HOLD_MS (a slow disk: two fsyncs
 * of an SD card can take longer): it waits for the pass, up to this, so that the WAL is restarted
 * at least every other cycle instead of growing to the fallback and checkpointing on the event loop.
 */
const MAX_HOLD_AFTER_MISS_MS = 1_000;

const ENTRY = import.meta.url.includes("/$bunfs/") ? new URL("./db/checkpoint-worker.ts", import.meta.url).href : new URL("./checkpoint-worker.ts", import.meta.url).href;

export interface Checkpointer {
  /** A group commit of `jobs` writes was committed. */
  committed(jobs: number): void;
  /** Ends the Worker after the checkpoint in progress, and gives the connection its own checkpoints back. */
  close(): Promise<void>;
  /** Checkpoints the Worker ran, whether it is given up, and the current cycle's length in jobs (tests, the benchmark). */
  readonly stats: { runs: number; failed: boolean; jobsPerCheckpoint: number };
  /** True while the group commit should hold its next batch (the last pass of a checkpoint runs). */
  readonly holding: boolean;
}

/**
 * WAL checkpoints off the event loop (issue 18). SQLite checkpoints inside the COMMIT that takes the
 * WAL past `wal_autocheckpoint` pages (1,000): it copies those pages into the database file and
 * fsyncs twice on the thread that committed — the event loop — every few hundred inbound intents.
 * Once the group commit has seen JOBS_PER_CHECKPOINT writes, a Worker with its own connection
 * starts and checkpoints again after every cycle of writes (~TARGET_FRAMES frames), and the main connection's automatic
 * checkpoint moves to FALLBACK_AUTOCHECKPOINT pages. A node at rest never starts the Worker. A
 * Worker that fails gives the connection its default back. Durability is SQLite's own: a checkpoint
 * only copies committed frames, after syncing the WAL (docs/decisions/inbound-performance.md).
 *
 * Each checkpoint is three PASSIVE passes (PASSIVE never takes the writer's lock). SQLite restarts
 * the WAL from its beginning only when a write transaction begins with every frame copied, which
 * writes arriving every millisecond never allow: the WAL grew to the fallback, and then every
 * COMMIT checkpointed on the event loop. So the long pass and a chase pass (what was written during
 * the long one) run while writes go on, and the last pass copies the few frames left while
 * `holding` asks the group commit to keep its next batch back (requests are still read and
 * verified meanwhile), for MAX_HOLD_MS at most (MAX_HOLD_AFTER_MISS_MS after a cycle whose last
 * pass outlasted it); the batch after it restarts the WAL.
 */
export function createCheckpointer(
  sqlite: Database,
  file: string,
  options: {
    entry?: string;
    /** The first cycle's length in jobs, fixed for every cycle unless `targetFrames` is given (tests). */
    jobsPerCheckpoint?: number;
    /** The frames a cycle aims at (default TARGET_FRAMES); the next cycle's length follows them. */
    targetFrames?: number;
    onFailure?: (reason: string) => void;
    /** The hold has ended (the group commit flushes what it kept back). */
    onRelease?: () => void;
  } = {},
): Checkpointer {
  const adaptive = options.jobsPerCheckpoint === undefined || options.targetFrames !== undefined;
  const target = options.targetFrames ?? TARGET_FRAMES;
  let worker: Worker | null = null;
  let since = 0;
  let running = false;
  let closing: Promise<void> | null = null;
  const stats = { runs: 0, failed: false, jobsPerCheckpoint: options.jobsPerCheckpoint ?? JOBS_PER_CHECKPOINT };
  let settle: (() => void) | null = null;
  // null: no checkpoint; "long" and "chase": the passes beside the writes; "last": the held one.
  let pass: "long" | "chase" | "last" | null = null;
  let holdTimer: ReturnType<typeof setTimeout> | null = null;
  let holding = false;
  // The last hold ended at its limit, before the last pass: the next one waits longer.
  let missed = false;
  const release = () => {
    if (holdTimer) clearTimeout(holdTimer);
    holdTimer = null;
    if (!holding) return;
    holding = false;
    options.onRelease?.();
  };

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
    pass = null;
    release();
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
      if (reply.type === "checkpointed" && pass === "long" && adaptive && reply.log > 0) {
        // The WAL held `log` frames after this cycle's jobs (more if the last restart failed: then
        // the next cycle is only shorter).
        const perJob = reply.log / stats.jobsPerCheckpoint;
        stats.jobsPerCheckpoint = Math.max(MIN_JOBS_PER_CHECKPOINT, Math.min(JOBS_PER_CHECKPOINT, Math.round(target / perJob)));
      }
      if (reply.type === "checkpointed" && (pass === "long" || pass === "chase") && !closing) {
        // A second pass beside the writes copies what they added during the long one, so that the
        // held last pass has only a few frames left to copy (see above).
        if (pass === "chase") {
          holding = true;
          holdTimer = setTimeout(
            () => {
              missed = true;
              release();
            },
            missed ? MAX_HOLD_AFTER_MISS_MS : MAX_HOLD_MS,
          );
        }
        pass = pass === "long" ? "chase" : "last";
        w.postMessage({ type: "checkpoint", file } satisfies CheckpointRequest);
        return;
      }
      running = false;
      if (reply.type === "checkpointed") stats.runs++;
      if (pass === "last" && holding) missed = false;
      pass = null;
      release();
      if (reply.type === "closed" || closing) settle?.();
    };
    w.onerror = (event) => giveUp(event.message);
    w.unref();
    ownCheckpoints(FALLBACK_AUTOCHECKPOINT);
    return w;
  };
  return {
    stats,
    get holding() {
      return holding;
    },
    committed(jobs) {
      since += jobs;
      if (running || closing || stats.failed || since < stats.jobsPerCheckpoint) return;
      since = 0;
      running = true;
      pass = "long";
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
