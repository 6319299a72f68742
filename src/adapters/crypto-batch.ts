// Ed25519 verifies and signs batched across requests (issue 14; docs/decisions/extensions.md §13).
// The calls made during one turn of the event loop are flushed together (setImmediate: after the
// turn's I/O callbacks, so every request that arrived in it has made its calls) and handed to the
// workers as transferred buffers: a worker holds at most two parts, the rest waits here for the
// first worker that answers (§15). The serving thread packs bytes and the workers do the curve work. A one-call
// message cost the serving thread more than verifying in place (§12); one message per turn is what
// makes a worker pay. Batches are answered in the order they were flushed, so callers' promises
// resolve in call order (the audit chain's writes stay in sequence order). Whatever cannot go to a
// worker (every worker at its cap, a crashed or given-up worker, a closed batcher, a call of an odd
// size) is computed on the calling thread by the same functions.
import { nativeEd25519Sign, nativeStrictVerifier } from "../security/ed25519-native.ts";
import type { BatchedCrypto } from "../security/batched-crypto.ts";
import type { VerifyCall } from "../security/preverify.ts";
import { pack, packable, type PackedReply, type SignCall } from "./crypto-batch-pack.ts";
import { callQueue, callsIn, type Calls, type Piece } from "./crypto-batch-queue.ts";
import { availableParallelism } from "node:os";

export interface CryptoBatcher extends BatchedCrypto {
  /** Stops the workers; what they held is computed on the calling thread, later calls too. */
  close(): Promise<void>;
  /** For tests and metrics: batches held by workers now, batches computed here, messages posted, worker failures. */
  stats(): { inFlight: number; computedHere: number; messages: number; crashes: number };
  /** For benchmarks: the CPU time (µs) the workers have used so far, as they last reported it. */
  workerCpuUs(): number;
}

export interface CryptoBatcherOptions {
  workers: number;
  /** Parts one worker holds at once, the one it runs and the next (default 2); the rest waits here for the first worker that frees up. */
  maxInFlight?: number;
  /** Calls waiting here for a worker past which a new turn's calls are computed on the calling thread (default 512: a few ms of curve work). */
  maxQueued?: number;
  /** A turn's calls are split across workers only in parts of at least this many (default 16). */
  minPart?: number;
  /** Calls after which a batch is flushed without waiting for the end of the turn (default 32). */
  maxBatch?: number;
  /** Calls one message carries at most (default 128, or maxBatch if larger). */
  maxPart?: number;
  /** Worker entry (tests pass a crashing one). */
  entry?: string;
  /** Restarts of one slot after a failure before it is given up (default 3). */
  maxRestarts?: number;
  onCrash?: (reason: string) => void;
  /** For benchmarks: told of each part a worker answered (when it was posted, ran there and came back: ms since the epoch). */
  onPart?: (part: PartTrace) => void;
}

/** One part of a batch, as a worker ran it (scripts/bench/extension-auth-trace.ts draws the timeline). */
export interface PartTrace {
  slot: number;
  verifies: number;
  signs: number;
  postedAt: number;
  startedAt: number;
  endedAt: number;
  answeredAt: number;
}

/** One turn's calls and, once every call is back, their results. */
interface Batch extends Calls {
  waiters: Array<() => void>;
  verdicts: Uint8Array;
  signatures: Uint8Array;
  /** Calls not answered yet. */
  left: number;
}
/** What one message carries: pieces of one or more batches, oldest first. */
interface Part {
  pieces: Array<Piece<Batch>>;
  postedAt?: number;
}
interface Slot {
  worker: Worker | null;
  pending: Map<number, Part>;
  restarts: number;
  /** The CPU time this slot's workers used (µs): earlier workers', and the current one's last report. */
  cpuBefore: number;
  cpuUs: number;
}

// From source, the worker sits beside this file. In the compiled binary every module is bundled
// into one file at the root of Bun's embedded file system, which is src/ (the common folder of the
// entry points scripts/build.ts passes), so the worker is at adapters/crypto-batch-worker.ts.
const ENTRY = import.meta.url.includes("/$bunfs/")
  ? new URL("./adapters/crypto-batch-worker.ts", import.meta.url).href
  : new URL("./crypto-batch-worker.ts", import.meta.url).href;

export function createCryptoBatcher(options: CryptoBatcherOptions): CryptoBatcher {
  const size = Math.max(0, Math.floor(options.workers));
  const maxInFlight = Math.max(1, options.maxInFlight ?? 2);
  const maxQueued = Math.max(0, options.maxQueued ?? 512);
  const minPart = Math.max(1, options.minPart ?? 16);
  const maxBatch = Math.max(1, options.maxBatch ?? 32);
  const maxPart = Math.max(minPart, options.maxPart ?? Math.max(128, maxBatch));
  const maxRestarts = options.maxRestarts ?? 3;
  const entry = options.entry ?? ENTRY;
  const slots: Slot[] = Array.from({ length: size }, () => ({ worker: null, pending: new Map(), restarts: 0, cpuBefore: 0, cpuUs: 0 }));
  const order: Batch[] = []; // flushed, answered oldest first
  // Flushed calls no worker has taken yet, oldest first: they go to the first worker with room
  // (a worker that is slow, or that the OS does not run, holds at most maxInFlight parts).
  const queue = callQueue<Batch>();
  let current: Batch | null = null;
  let nextId = 1;
  let closed = false;
  let computedHere = 0;
  let messages = 0;
  let crashes = 0;

  const complete = (pieces: Array<Piece<Batch>>, verdicts: Uint8Array, signatures: Uint8Array) => {
    let v = 0;
    let s = 0;
    for (const p of pieces) {
      p.batch.verdicts.set(verdicts.subarray(v, v + p.v1 - p.v0), p.v0);
      v += p.v1 - p.v0;
      p.batch.signatures.set(signatures.subarray(64 * s, 64 * (s + p.s1 - p.s0)), 64 * p.s0);
      s += p.s1 - p.s0;
      p.batch.left -= callsIn(p);
    }
    while (order.length > 0 && order[0]!.left === 0) for (const wake of order.shift()!.waiters) wake();
  };
  const runHere = (pieces: Array<Piece<Batch>>) => {
    if (pieces.length === 0) return;
    computedHere++;
    const verdicts: number[] = [];
    const signatures: Uint8Array[] = [];
    for (const { batch, v0, v1, s0, s1 } of pieces) {
      for (let i = v0; i < v1; i++) verdicts.push(nativeStrictVerifier(batch.verifies[i]!.publicKey, batch.verifies[i]!.message, batch.verifies[i]!.signature) ? 1 : 0);
      for (let i = s0; i < s1; i++) signatures.push(nativeEd25519Sign(batch.signs[i]!.message, batch.signs[i]!.secretKey));
    }
    const packed = new Uint8Array(64 * signatures.length);
    signatures.forEach((sig, i) => packed.set(sig, 64 * i));
    complete(pieces, Uint8Array.from(verdicts), packed);
  };

  const fail = (slot: Slot, worker: Worker, reason: string) => {
    if (slot.worker !== worker) return;
    slot.worker = null;
    slot.restarts++;
    slot.cpuBefore += slot.cpuUs;
    slot.cpuUs = 0;
    if (!closed) {
      crashes++;
      options.onCrash?.(reason);
    }
    worker.terminate();
    const held = [...slot.pending.values()];
    slot.pending.clear();
    for (const part of held) runHere(part.pieces);
    dispatch();
  };
  const start = (slot: Slot): Worker | null => {
    if (slot.worker || closed || slot.restarts > maxRestarts) return slot.worker;
    const worker = new Worker(entry);
    worker.unref(); // an idle batcher never keeps the process alive
    worker.onmessage = (event: MessageEvent<PackedReply>) => {
      slot.cpuUs = event.data.cpuUs;
      const part = slot.pending.get(event.data.id);
      if (!part) return;
      slot.pending.delete(event.data.id);
      if (slot.pending.size === 0) worker.unref();
      if (options.onPart) {
        const { startedAt, endedAt } = event.data;
        const count = (k: "v" | "s") => part.pieces.reduce((n, p) => n + (k === "v" ? p.v1 - p.v0 : p.s1 - p.s0), 0);
        options.onPart({ slot: slots.indexOf(slot), verifies: count("v"), signs: count("s"), postedAt: part.postedAt!, startedAt, endedAt, answeredAt: performance.timeOrigin + performance.now() });
      }
      complete(part.pieces, event.data.verdicts, event.data.signatures);
      dispatch(); // this worker has room again: it takes what waits
    };
    worker.onerror = (event) => fail(slot, worker, event.message || "error");
    worker.addEventListener("close", () => fail(slot, worker, "exited"));
    slot.worker = worker;
    return worker;
  };

  const post = (slot: Slot, worker: Worker, pieces: Array<Piece<Batch>>) => {
    const id = nextId++;
    // Referenced while it holds work: a process waiting for an answer stays up, and Bun's event
    // loop sleeps until the reply instead of spinning, which it does when nothing referenced is
    // left (an in-process caller, no listening socket: measured ~all of the wait as this
    // thread's CPU; a serving node's socket hides it).
    if (slot.pending.size === 0) worker.ref();
    const part: Part = { pieces };
    slot.pending.set(id, part);
    const verifies: VerifyCall[] = [];
    const signs: SignCall[] = [];
    for (const p of pieces) {
      for (let i = p.v0; i < p.v1; i++) verifies.push(p.batch.verifies[i]!);
      for (let i = p.s0; i < p.s1; i++) signs.push(p.batch.signs[i]!);
    }
    const request = pack(id, verifies, signs);
    messages++;
    if (options.onPart) part.postedAt = performance.timeOrigin + performance.now();
    worker.postMessage(request, { transfer: [request.data.buffer as ArrayBuffer] });
  };
  /**
   * Hands what waits to the workers with room, least loaded first: split across those that are
   * free in parts of at least minPart (so two idle workers share a turn), at most maxPart a
   * message. With no worker left at all (closed, or every slot given up) it is computed here.
   */
  const dispatch = () => {
    while (queue.calls > 0) {
      const usable = closed ? [] : slots.filter((s) => s.restarts <= maxRestarts);
      if (usable.length === 0) {
        runHere(queue.take(queue.calls));
        return;
      }
      const room = usable.filter((s) => s.pending.size < maxInFlight).sort((a, b) => a.pending.size - b.pending.size);
      if (room.length === 0) return; // the next answer dispatches again
      const parts = Math.max(1, Math.min(room.length, Math.floor(queue.calls / minPart)));
      const each = Math.min(maxPart, Math.ceil(queue.calls / parts));
      let posted = false;
      for (let p = 0; p < parts && queue.calls > 0; p++) {
        const slot = room[p]!;
        const worker = start(slot);
        if (worker) post(slot, worker, queue.take(each));
        posted ||= worker !== null;
      }
      if (!posted) return runHere(queue.take(queue.calls));
    }
  };

  const flush = (batch: Batch) => {
    if (current === batch) current = null;
    batch.verdicts = new Uint8Array(batch.verifies.length);
    batch.signatures = new Uint8Array(64 * batch.signs.length);
    batch.left = batch.verifies.length + batch.signs.length;
    order.push(batch);
    // a turn whose calls were all answered at once (none packable): nothing to send, answered in its order
    if (batch.left === 0) return complete([], batch.verdicts, batch.signatures);
    const piece: Piece<Batch> = { batch, v0: 0, v1: batch.verifies.length, s0: 0, s1: batch.signs.length };
    // back-pressure: every worker full and this much already waiting for one: this thread works too
    const full = !slots.some((s) => s.restarts <= maxRestarts && s.pending.size < maxInFlight);
    if (size === 0 || (full && queue.calls + batch.left > maxQueued)) return runHere([piece]);
    queue.push(piece);
    dispatch();
  };
  const batch = (): Batch => {
    if (current === null) {
      const b: Batch = { verifies: [], signs: [], waiters: [], verdicts: new Uint8Array(0), signatures: new Uint8Array(0), left: 0 };
      current = b;
      setImmediate(() => {
        if (current === b) flush(b);
      });
    }
    return current;
  };
  // A full batch goes at once: the worker starts on it while this thread still works through the
  // turn's other requests (flushing only at the end of the turn leaves one side idle at a time).
  const flushIfFull = (b: Batch) => {
    if (b.verifies.length + b.signs.length >= maxBatch) flush(b);
  };

  return {
    size,
    verifyAll(calls) {
      if (calls.length === 0) return Promise.resolve([]);
      const b = batch();
      // an odd-sized key or signature is not packed; the strict verifier's verdict for it, now
      const at = calls.map((c) => (packable.verify(c) ? b.verifies.push(c) - 1 : nativeStrictVerifier(c.publicKey, c.message, c.signature)));
      const answer = new Promise<boolean[]>((resolve) => b.waiters.push(() => resolve(at.map((i) => (typeof i === "boolean" ? i : b.verdicts[i] === 1)))));
      flushIfFull(b);
      return answer;
    },
    sign(message, secretKey) {
      if (!packable.sign({ message, secretKey })) return Promise.resolve(nativeEd25519Sign(message, secretKey));
      const b = batch();
      const i = b.signs.push({ message, secretKey }) - 1;
      const answer = new Promise<Uint8Array>((resolve) => b.waiters.push(() => resolve(b.signatures.slice(64 * i, 64 * i + 64))));
      flushIfFull(b);
      return answer;
    },
    async close() {
      closed = true;
      for (const slot of slots) {
        const worker = slot.worker;
        slot.restarts = maxRestarts + 1; // no restart after close
        if (worker) fail(slot, worker, "closed");
      }
      dispatch(); // what waited for a worker: here
    },
    stats: () => ({ inFlight: slots.reduce((n, s) => n + s.pending.size, 0), computedHere, messages, crashes }),
    workerCpuUs: () => slots.reduce((n, s) => n + s.cpuBefore + s.cpuUs, 0),
  };
}

/** Worker threads worth having here: one per core the process may run on, besides its own. */
export function defaultVerifyWorkers(): number {
  return Math.max(0, availableParallelism() - 1);
}

let shared: CryptoBatcher | null = null;
/** The process's batcher (no worker starts before the first call): `kith serve` sizes it by KITH_VERIFY_WORKERS. */
export function sharedCryptoBatcher(options: { workers?: number | null; onCrash?: (reason: string) => void } = {}): CryptoBatcher {
  shared ??= createCryptoBatcher({ workers: options.workers ?? defaultVerifyWorkers(), ...(options.onCrash ? { onCrash: options.onCrash } : {}) });
  return shared;
}
