// Worker entry of the cross-request Ed25519 batcher (crypto-batch.ts). It runs the very functions
// the serving thread would (nativeStrictVerifier, nativeEd25519Sign), so what it answers is what
// the serving thread would have computed. scripts/build.ts compiles it as an entry point of the binary.
import { nativeEd25519Sign } from "../security/ed25519-native.ts";
import { runPacked, type PackedReply, type PackedRequest } from "./crypto-batch-pack.ts";

declare const self: Worker;

// nativeEd25519Sign keeps its KeyObject per key array: hand it one stable array per seed rather
// than the batch's copy, so the agent's key is imported once, not once per batch.
let seed: Uint8Array | null = null;
const stableSeed = (bytes: Uint8Array): Uint8Array => {
  if (seed === null || !sameBytes(seed, bytes)) seed = bytes.slice();
  return seed;
};
const sameBytes = (a: Uint8Array, b: Uint8Array) => a.length === b.length && a.every((x, i) => x === b[i]);

self.onmessage = (event: MessageEvent<PackedRequest>) => {
  const startedAt = performance.timeOrigin + performance.now();
  const result = runPacked(event.data, (message, key) => nativeEd25519Sign(message, stableSeed(key)));
  const cpu = process.threadCpuUsage(); // this thread's CPU so far, for benchmarks (CryptoBatcher.workerCpuUs)
  const reply: PackedReply = { ...result, cpuUs: cpu.user + cpu.system, startedAt, endedAt: performance.timeOrigin + performance.now() };
  self.postMessage(reply, { transfer: [reply.verdicts.buffer as ArrayBuffer, reply.signatures.buffer as ArrayBuffer] });
};
