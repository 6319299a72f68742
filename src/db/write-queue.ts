import type { Db, Tx } from "./client.ts";

type NotPromise<T> = T extends PromiseLike<unknown> ? never : T;

export interface WriteQueue {
  /**
   * Runs `fn` in a transaction shared with the other writes submitted in the same turn of the
   * event loop (group commit): one fsync for the whole batch. Each `fn` runs in its own savepoint,
   * so a throwing one is rolled back alone and rejects only its own promise. The promise resolves
   * after COMMIT, so an acknowledged write is durable.
   */
  run<T>(fn: (tx: Tx) => NotPromise<T>): Promise<T>;
  /** Resolves when everything submitted so far has been committed. */
  drain(): Promise<void>;
}

interface Job {
  fn: (tx: Tx) => unknown;
  resolve(value: unknown): void;
  reject(error: unknown): void;
}

export function createWriteQueue(db: Db, options: { maxBatch?: number } = {}): WriteQueue {
  const maxBatch = options.maxBatch ?? 256;
  let queue: Job[] = [];
  let scheduled = false;
  let idle: Promise<void> = Promise.resolve();
  let settleIdle: (() => void) | null = null;

  const flush = () => {
    scheduled = false;
    while (queue.length > 0) {
      const batch = queue.splice(0, maxBatch);
      const results: Array<{ ok: true; value: unknown } | { ok: false; error: unknown }> = [];
      try {
        db.transaction(
          (tx) => {
            for (const job of batch) {
              try {
                results.push({ ok: true, value: tx.transaction((inner) => job.fn(inner)) });
              } catch (error) {
                results.push({ ok: false, error }); // the savepoint was rolled back; the batch goes on
              }
            }
          },
          { behavior: "immediate" },
        );
      } catch (error) {
        for (const job of batch) job.reject(error); // COMMIT failed: nothing of the batch was kept
        continue;
      }
      batch.forEach((job, i) => {
        const r = results[i]!;
        if (r.ok) job.resolve(r.value);
        else job.reject(r.error);
      });
    }
    settleIdle?.();
    settleIdle = null;
  };

  return {
    run<T>(fn: (tx: Tx) => NotPromise<T>): Promise<T> {
      return new Promise<T>((resolve, reject) => {
        queue.push({ fn, resolve: resolve as (v: unknown) => void, reject });
        if (!scheduled) {
          scheduled = true;
          if (!settleIdle) idle = new Promise((r) => (settleIdle = r));
          // setImmediate: after the I/O callbacks of this turn, so concurrent requests share a commit
          setImmediate(flush);
        }
      });
    },
    drain: () => (scheduled ? idle : Promise.resolve()),
  };
}
