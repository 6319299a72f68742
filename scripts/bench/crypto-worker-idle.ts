// The crypto batcher's worker: its CPU per verify when batches arrive with gaps between them (as a
// serving node's turns do), against the curve work alone. Process CPU minus the calling thread's
// is the workers' (and Bun's helper threads'); in place is the curve work on this thread. A loop
// that spun between batches would cost more per verify as the gap grows; issue 18's session
// measured ~6-9 µs per verify above the curve work at 8 per batch for gaps of 0-1 ms, 23 µs at 2 ms
// (docs/decisions/inbound-performance.md, "The inbound audit signature on the batcher").
// Per-call timings of a thread's CPU (getrusage) are not to be trusted: a thread's time is brought
// up to date at its next reschedule, so a postMessage or an Atomics.notify that wakes another
// thread shows the caller's earlier work as its own. Measure over whole loops, as here.
// Usage: bun scripts/bench/crypto-worker-idle.ts [batches=400] [perBatch=8] [gapMs=1] [runs=5]
import { createCryptoBatcher } from "../../src/adapters/crypto-batch.ts";
import { ed25519Sign, generateEd25519KeyPair } from "../../src/ink/index.ts";
import { nativeStrictVerifier } from "../../src/security/ed25519-native.ts";
import type { VerifyCall } from "../../src/security/preverify.ts";

const BATCHES = Number(process.argv[2] ?? 400);
const PER_BATCH = Number(process.argv[3] ?? 8);
const GAP_MS = Number(process.argv[4] ?? 1);
const RUNS = Number(process.argv[5] ?? 5);
const keepAlive = setInterval(() => {}, 1 << 30); // a server's listening socket

const sender = generateEd25519KeyPair(new Uint8Array(32).fill(3));
const enc = new TextEncoder();
const calls: VerifyCall[] = Array.from({ length: 64 }, (_, i) => {
  const message = enc.encode(`{"intent":"ask","nonce":"n-${i}","payload":"${"x".repeat(1200)}"}`);
  return { publicKey: sender.publicKey, message, signature: ed25519Sign(message, sender.secretKey) };
});
const cpu = () => {
  const p = process.cpuUsage();
  const t = process.threadCpuUsage();
  return { all: p.user + p.system, main: t.user + t.system };
};

async function batched(batcher: ReturnType<typeof createCryptoBatcher>): Promise<{ main: number; others: number }> {
  const a = cpu();
  for (let b = 0; b < BATCHES; b++) {
    const v = await batcher.verifyAll(calls.slice(0, PER_BATCH));
    if (!v.every(Boolean)) throw new Error("refused");
    if (GAP_MS >= 1) await Bun.sleep(GAP_MS);
    else if (GAP_MS > 0) {
      // a gap shorter than a timer's: this thread stays busy (as a serving thread between flushes)
      const until = performance.now() + GAP_MS;
      while (performance.now() < until);
      await Promise.resolve();
    }
  }
  const z = cpu();
  const n = BATCHES * PER_BATCH;
  return { main: (z.main - a.main) / n, others: (z.all - z.main - (a.all - a.main)) / n };
}
function inPlace(): number {
  const t0 = cpu().main;
  for (let b = 0; b < BATCHES; b++) for (const c of calls.slice(0, PER_BATCH)) if (!nativeStrictVerifier(c.publicKey, c.message, c.signature)) throw new Error("refused");
  return (cpu().main - t0) / (BATCHES * PER_BATCH);
}

const batcher = createCryptoBatcher({ workers: 1, maxInFlight: 1_000_000 });
await batched(batcher);
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!.toFixed(1);
const r = { main: [] as number[], others: [] as number[], here: [] as number[] };
for (let run = 0; run < RUNS; run++) {
  const b = await batched(batcher);
  r.main.push(b.main);
  r.others.push(b.others);
  r.here.push(inPlace());
}
console.log(`${PER_BATCH} verifies per batch, ${GAP_MS} ms between batches, medians of ${RUNS}: worker (other threads) ${median(r.others)} µs per verify, calling thread ${median(r.main)}, curve work in place ${median(r.here)}`);
await batcher.close();
clearInterval(keepAlive);
