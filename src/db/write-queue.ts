import { walSyncer } from "./wal-syncer.ts";
import { createCheckpointer, type Checkpointer } from "./checkpointer.ts";
import type { Db, NotPromise, Tx } from "./client.ts";

export interface WriteQueue {
  /**
   * Runs `fn` in a transaction shared with the other writes submitted in the same turn of the
   * event loop (group commit). Each `fn` runs in its own savepoint, so a throwing one is rolled
   * back alone and rejects only its own promise. The promise resolves once the batch is durable
   * (see createWriteQueue), so an acknowledged write survives a power cut.
   */
  run<T>(fn: (tx: Tx) => NotPromise<T>): Promise<T>;
  /** Resolves when everything submitted so far is committed and durable. */
  drain(): Promise<void>;
  /** Drains, then ends the background checkpoints and releases the WAL file descriptor (call before closing the database). */
  close(): Promise<void>;
  /** The background checkpointer (a file database in WAL mode), else null. */
  readonly checkpoints: Checkpointer | null;
  /** For tests and metrics: transactions committed so far (one per batch). */
  readonly commits: number;
}

interface Job {
  fn: (tx: Tx) => unknown;
  /** When it was submitted (the linger is counted from the oldest job's arrival). */
  at: number;
  resolve(value: unknown): void;
  reject(error: unknown): void;
}

/**
 * Group commit for hot write paths. With a `walFile` (a file database in WAL mode), a batch is
 * committed with `synchronous=NORMAL` — no fsync inside COMMIT, which would block the event loop
 * — and then the WAL file is fsynced on a worker thread; the batch's promises resolve only after
 * an fsync that started after its COMMIT. WAL is append-only and an fsync flushes every frame
 * written before it, so each acknowledged batch (and everything before it) is on disk. The
 * connection goes back to `synchronous=FULL` right after the batch, so every other writer keeps
 * fsyncing inside its own COMMIT. Without `walFile` (in-memory databases) COMMIT is the end.
 * docs/decisions/durable-group-commit.md has the argument.
 */
export function createWriteQueue(
  db: Db,
  options: {
    maxBatch?: number;
    walFile?: string | null;
    checkpoints?: Parameters<typeof createCheckpointer>[2];
    /** Longest a small batch waits for company before its COMMIT (see `linger` below); 0: never. */
    lingerMs?: number;
    /** Clock for the arrival rate (tests). */
    now?: () => number;
  } = {},
): WriteQueue {
  const maxBatch = options.maxBatch ?? 512;
  const syncer = options.walFile ? walSyncer(options.walFile) : null;
  // Checkpoints of this connection's WAL off the event loop once it is busy (checkpointer.ts).
  const checkpoints = options.walFile
    ? createCheckpointer(db.$client, db.$client.filename, {
        ...options.checkpoints,
        // A checkpoint's last pass held the batches back so that the WAL can restart (checkpointer.ts).
        onRelease: () => {
          if (queue.length > 0) schedule();
        },
      })
    : null;
  // Raw statements, prepared once: drizzle's transaction helpers build and prepare these per call.
  const prepare = (text: string) => db.$client.prepare(text);
  const sql = {
    begin: prepare("BEGIN IMMEDIATE"),
    commit: prepare("COMMIT"),
    rollback: prepare("ROLLBACK"),
    savepoint: prepare("SAVEPOINT job"),
    release: prepare("RELEASE job"),
    rollbackTo: prepare("ROLLBACK TO job"),
    normal: prepare("PRAGMA synchronous = NORMAL"),
    full: prepare("PRAGMA synchronous = FULL"),
  };
  let queue: Job[] = [];
  let scheduled = false;
  let lastDurable: Promise<void> = Promise.resolve();
  let commits = 0;

  // Jobs that come while the WAL's fsync runs wait for it to end and then commit together: their
  // answers need the fsync after their COMMIT anyway, so committing them one by one meanwhile only
  // writes the pages they share once per job (an intent alone in its COMMIT writes ~22 WAL frames,
  // ~4 when it shares one: inbound-performance.md, "Group commit waits for the fsync in flight").
  let afterSync = false;
  const flushAfterSync = (inFlight: Promise<void>) => {
    if (afterSync) return;
    afterSync = true;
    const resume = () => {
      afterSync = false;
      if (queue.length > 0) schedule();
    };
    inFlight.then(resume, resume);
  };
  // Linger: at a steady moderate rate (1,000 intents/s) the fsync is rarely in flight when a job
  // comes, so each committed alone: ~25 WAL frames, a COMMIT and an fsync per intent, against ~15
  // when two share a COMMIT. When the arrival rate says another job is likely within LINGER_MS, a
  // small batch waits for the jobs the rate promises in that time (2 to LINGER_BATCH; LINGER_MS at
  // most, from its first job) and they share one COMMIT and one fsync. Only the COMMIT moves:
  // every answer still waits for an fsync that started after it. Never at a low rate (nothing to
  // share: the wait would be latency only) nor when the batch is already large (saturation: the
  // fsync in flight gathers them). inbound-performance.md, "WAL frames per intent, and commit
  // coalescing at 1,000/s".
  const lingerMs = syncer ? (options.lingerMs ?? LINGER_MS) : 0;
  const now = options.now ?? (() => performance.now());
  const arrivals = arrivalRate(now);
  let lingering: ReturnType<typeof setTimeout> | null = null;
  let lingerTarget = LINGER_BATCH;
  // drain()/close() running: a linger would only delay them (nobody waits for company then).
  let draining = 0;
  const endLinger = () => {
    lingering = null;
    flush(false);
  };
  /** Ends a running linger without a flush of its own (the caller schedules one). */
  const endLingerNow = () => {
    if (lingering) clearTimeout(lingering);
    lingering = null;
  };
  /** A flush in the next turn, unless one is scheduled or a linger will end in one. */
  const schedule = () => {
    if (scheduled || lingering) return;
    scheduled = true;
    // setImmediate: after the I/O callbacks of this turn, so concurrent requests share a commit
    setImmediate(flush);
  };
  const flush = (mayLinger = true) => {
    scheduled = false;
    if (lingering) return; // the timer, or enough company, ends it
    if (checkpoints?.holding) return; // onRelease schedules the next flush
    const inFlight = queue.length < maxBatch ? syncer?.inFlight() : null;
    if (inFlight) return flushAfterSync(inFlight);
    const gap = arrivals.meanGapMs();
    if (mayLinger && draining === 0 && lingerMs > 0 && queue.length > 0 && gap < lingerMs * LINGER_GAP_FACTOR) {
      // The company the rate promises within the linger: the job that brings it ends the wait in
      // its own turn (at 1,000/s the second, ~1 ms after the first), the timer only a wait in vain.
      lingerTarget = Math.max(2, Math.min(LINGER_BATCH, 1 + Math.floor(lingerMs / gap)));
      // never past lingerMs from now, whatever the clock did since the job came (a step back)
      const left = Math.min(lingerMs, queue[0]!.at + lingerMs - now());
      if (queue.length < lingerTarget && left > 0) {
        lingering = setTimeout(endLinger, left);
        return;
      }
    }
    while (queue.length > 0) {
      const batch = queue.splice(0, maxBatch);
      const results: Array<{ ok: true; value: unknown } | { ok: false; error: unknown }> = [];
      try {
        if (syncer) sql.normal.run();
        sql.begin.run();
        try {
          if (batch.length === 1) {
            // Alone in its batch, a job needs no savepoint (it copies every page the job touches
            // into a sub-journal): if it throws, the whole transaction is its own to roll back.
            try {
              results.push({ ok: true, value: batch[0]!.fn(db as unknown as Tx) });
            } catch (error) {
              sql.rollback.run();
              batch[0]!.reject(error);
              continue;
            }
          } else {
            for (const job of batch) {
              sql.savepoint.run();
              try {
                // The drizzle handle runs on this same connection, so it writes inside this transaction.
                results.push({ ok: true, value: job.fn(db as unknown as Tx) });
                sql.release.run();
              } catch (error) {
                sql.rollbackTo.run(); // only this job's writes are undone; the batch goes on
                sql.release.run();
                results.push({ ok: false, error });
              }
            }
          }
          sql.commit.run();
          commits++;
        } catch (error) {
          if (db.$client.inTransaction) sql.rollback.run();
          throw error;
        }
      } catch (error) {
        for (const job of batch) job.reject(error); // COMMIT failed: nothing of the batch was kept
        continue;
      } finally {
        if (syncer) sql.full.run();
      }
      checkpoints?.committed(batch.length);
      const settle = () =>
        batch.forEach((job, i) => {
          const r = results[i]!;
          if (r.ok) job.resolve(r.value);
          else job.reject(r.error);
        });
      if (!syncer) {
        settle();
        continue;
      }
      const durable = syncer.syncAfterNow();
      lastDurable = durable;
      durable.then(settle, (error) => batch.forEach((job) => job.reject(error)));
    }
  };

  return {
    run<T>(fn: (tx: Tx) => NotPromise<T>): Promise<T> {
      return new Promise<T>((resolve, reject) => {
        queue.push({ fn, at: arrivals.arrived(), resolve: resolve as (v: unknown) => void, reject });
        if (queue.length >= lingerTarget) endLingerNow();
        schedule();
      });
    },
    async drain() {
      draining++;
      try {
        // A running linger ends now: its batch commits in the next turn, and none starts until the drain is over.
        if (lingering) {
          endLingerNow();
          schedule();
        }
        while (scheduled || lingering || queue.length > 0) await new Promise((r) => setImmediate(r));
        await lastDurable.catch(() => {});
      } finally {
        draining--;
      }
    },
    async close() {
      await this.drain();
      await checkpoints?.close();
      syncer?.close();
    },
    checkpoints,
    get commits() {
      return commits;
    },
  };
}

/** Longest wait of a small batch for company before its COMMIT (the linger in createWriteQueue). */
const LINGER_MS = 1;
/** A batch of this many jobs commits without waiting for more, whatever the rate. */
const LINGER_BATCH = 4;
/** Linger only while the mean gap between jobs is under LINGER_GAP_FACTOR × LINGER_MS (~670 jobs/s and up). */
const LINGER_GAP_FACTOR = 1.5;

/**
 * The jobs' mean inter-arrival time, as an exponential moving average over the last ~8 arrivals
 * (a gap is counted up to 50 ms, so one idle minute does not take long to forget).
 */
function arrivalRate(now: () => number) {
  let last = -Infinity;
  let meanGap = Infinity;
  return {
    /** Counts an arrival; returns its time. */
    arrived(): number {
      const t = now();
      const gap = Math.min(50, t - last);
      last = t;
      meanGap = meanGap === Infinity ? gap : meanGap + (gap - meanGap) / 8;
      return t;
    },
    meanGapMs: () => meanGap,
  };
}
