// Ed25519 verification on worker threads, for devices with more than one core (issue 18). The
// pool never changes a verdict: every worker runs nativeStrictVerifier (verify-worker.ts), and
// whatever cannot go to a worker (no spare core, every worker at its in-flight cap, a worker
// that crashed, a pool that is closed) is verified on the calling thread by the same function.
// docs/decisions/inbound-performance.md has the measurements and the rejected alternatives.
import { availableParallelism } from "node:os";
import { nativeStrictVerifier } from "../security/ed25519-native.ts";
import type { SignaturePool, VerifyCall } from "../security/preverify.ts";

export interface VerifyRequest {
  id: number;
  calls: VerifyCall[];
}
export interface VerifyReply {
  id: number;
  verdicts: boolean[];
}

export interface VerifyPool extends SignaturePool {
  /** Stops the workers; what they still held is verified on the calling thread. */
  close(): Promise<void>;
  /** Counters for tests and metrics: batches held by workers now, verified on the calling thread, worker crashes. */
  stats(): { inFlight: number; verifiedHere: number; crashes: number };
}

export interface VerifyPoolOptions {
  workers: number;
  /**
   * Batches one worker may hold before the next one is verified on the calling thread (default 4:
   * a free core clears a batch long before the next arrives; a core that is not free, because
   * other processes load it, must not keep requests waiting behind a long queue).
   */
  maxInFlight?: number;
  /** Worker entry (tests pass a crashing one). */
  entry?: string;
  /** Restarts of one slot after a crash before it is given up (the caller's thread takes over). */
  maxRestarts?: number;
  /** Told of each worker that failed (to start, or later); its batches were verified anyway. */
  onCrash?: (reason: string) => void;
}

interface Job {
  calls: VerifyCall[];
  resolve(verdicts: boolean[]): void;
}
interface Slot {
  worker: Worker | null;
  pending: Map<number, Job>;
  restarts: number;
}

// From source, the worker sits beside this file. In the compiled binary every module is bundled
// into one file at the root of Bun's embedded file system, which is src/ (the common folder of
// the two entry points scripts/build.ts passes), so the worker is at adapters/verify-worker.ts.
const ENTRY = import.meta.url.includes("/$bunfs/")
  ? new URL("./adapters/verify-worker.ts", import.meta.url).href
  : new URL("./verify-worker.ts", import.meta.url).href;

const verifyHere = (calls: VerifyCall[]) => calls.map((c) => nativeStrictVerifier(c.publicKey, c.message, c.signature));

export function createVerifyPool(options: VerifyPoolOptions): VerifyPool {
  const size = Math.max(0, Math.floor(options.workers));
  const maxInFlight = options.maxInFlight ?? 4;
  const maxRestarts = options.maxRestarts ?? 3;
  const entry = options.entry ?? ENTRY;
  const slots: Slot[] = Array.from({ length: size }, () => ({ worker: null, pending: new Map(), restarts: 0 }));
  let nextId = 1;
  let closed = false;
  let verifiedHere = 0;
  let crashes = 0;
  const here = (calls: VerifyCall[]) => {
    verifiedHere++;
    return verifyHere(calls);
  };

  // A worker that fails or exits hands back what it held: verified here, answered as usual.
  const fail = (slot: Slot, worker: Worker, reason: string) => {
    if (slot.worker !== worker) return;
    slot.worker = null;
    slot.restarts++;
    if (!closed) {
      crashes++;
      options.onCrash?.(reason);
    }
    worker.terminate();
    const held = [...slot.pending.values()];
    slot.pending.clear();
    for (const job of held) job.resolve(here(job.calls));
  };
  const start = (slot: Slot): Worker | null => {
    if (slot.worker || closed || slot.restarts > maxRestarts) return slot.worker;
    const worker = new Worker(entry);
    worker.unref(); // an idle pool never keeps the process alive
    worker.onmessage = (event: MessageEvent<VerifyReply>) => {
      const job = slot.pending.get(event.data.id);
      if (!job) return;
      slot.pending.delete(event.data.id);
      job.resolve(event.data.verdicts);
    };
    worker.onerror = (event) => fail(slot, worker, event.message || "error");
    worker.addEventListener("close", () => fail(slot, worker, "exited"));
    slot.worker = worker;
    return worker;
  };
  // The least busy live slot under its cap; null when every worker is full, gone or closed.
  const pick = (): Slot | null => {
    let best: Slot | null = null;
    for (const slot of slots) {
      if (slot.restarts > maxRestarts || slot.pending.size >= maxInFlight) continue;
      if (best === null || slot.pending.size < best.pending.size) best = slot;
    }
    return best;
  };

  return {
    size,
    verifyAll(calls) {
      const slot = closed || calls.length === 0 ? null : pick();
      const worker = slot ? start(slot) : null;
      if (!slot || !worker) return Promise.resolve(here(calls)); // back-pressure: this thread works too
      const id = nextId++;
      return new Promise<boolean[]>((resolve) => {
        slot.pending.set(id, { calls, resolve });
        worker.postMessage({ id, calls } satisfies VerifyRequest);
      });
    },
    async close() {
      closed = true;
      for (const slot of slots) {
        const worker = slot.worker;
        slot.restarts = maxRestarts + 1; // no restart after close
        if (worker) fail(slot, worker, "closed");
      }
    },
    stats: () => ({ inFlight: slots.reduce((n, s) => n + s.pending.size, 0), verifiedHere, crashes }),
  };
}

/** Worker threads worth having here: one per core the process may run on, besides its own. */
export function defaultVerifyWorkers(): number {
  return Math.max(0, availableParallelism() - 1);
}

let shared: VerifyPool | null = null;
/**
 * The process's pool, created on first use (no worker starts before the first signed request):
 * `kith serve` configures it from KITH_VERIFY_WORKERS; nodes built in-process share it.
 */
export function sharedVerifyPool(options: { workers?: number | null; onCrash?: (reason: string) => void } = {}): VerifyPool {
  shared ??= createVerifyPool({ workers: options.workers ?? defaultVerifyWorkers(), ...(options.onCrash ? { onCrash: options.onCrash } : {}) });
  return shared;
}
