// The cross-request Ed25519 batcher (src/adapters/crypto-batch.ts) against verifying in place, for
// the inbound INK path's shape (the verify pool it replaced, one message per intent, measured
// 16-17 µs per intent at any batch size: docs/decisions/extensions.md §13): an intent is one verifyAll of 2 calls (transport and envelope signatures).
// Prints the serving thread's CPU per intent (process.threadCpuUsage: the workers excluded), the
// figure that bounds throughput when the curve work runs on other cores, for P intents per turn of
// the event loop, medians of RUNS, the three interleaved in each run. A referenced timer stands
// for a server's listening socket (without one Bun's loop spins while it waits for a Worker).
// Usage: bun scripts/bench/crypto-batch.ts [intents=3000] [runs=7] [workers=1]
import { createCryptoBatcher } from "../../src/adapters/crypto-batch.ts";
import { ed25519Sign, generateEd25519KeyPair } from "../../src/ink/index.ts";
import { nativeStrictVerifier } from "../../src/security/ed25519-native.ts";
import type { SignaturePool, VerifyCall } from "../../src/security/preverify.ts";

const INTENTS = Number(process.argv[2] ?? 3000);
const RUNS = Number(process.argv[3] ?? 7);
const WORKERS = Number(process.argv[4] ?? 1);
const keepAlive = setInterval(() => {}, 1 << 30);

const sender = generateEd25519KeyPair(new Uint8Array(32).fill(3));
const enc = new TextEncoder();
// ~1 KB messages, about an envelope's JCS and a transport signing string
const calls: VerifyCall[] = Array.from({ length: 64 }, (_, i) => {
  const message = enc.encode(`{"intent":"connection_request","nonce":"n-${i}","payload":"${"x".repeat(900)}"}`);
  return { publicKey: sender.publicKey, message, signature: ed25519Sign(message, sender.secretKey) };
});
const intent = (i: number) => [calls[(2 * i) % 64]!, calls[(2 * i + 1) % 64]!];
const threadNow = () => {
  const u = process.threadCpuUsage();
  return u.user + u.system;
};

async function through(pool: SignaturePool, perTurn: number): Promise<number> {
  const t0 = threadNow();
  for (let done = 0; done < INTENTS; done += perTurn) {
    const verdicts = await Promise.all(Array.from({ length: perTurn }, (_, i) => pool.verifyAll(intent(i))));
    if (!verdicts.every((v) => v[0] && v[1])) throw new Error("a valid signature was refused");
  }
  return (threadNow() - t0) / INTENTS;
}
function inPlace(): number {
  const t0 = threadNow();
  for (let i = 0; i < INTENTS; i++) for (const c of intent(i)) if (!nativeStrictVerifier(c.publicKey, c.message, c.signature)) throw new Error("refused");
  return (threadNow() - t0) / INTENTS;
}

const batcher = createCryptoBatcher({ workers: WORKERS, maxQueued: 1_000_000 }); // never computed here: the node's parts per worker, nothing in place
await through(batcher, 8); // warm-up, workers started
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!.toFixed(1);
for (const perTurn of [1, 4, 32]) {
  const r = { batcher: [] as number[], here: [] as number[] };
  for (let run = 0; run < RUNS; run++) {
    r.batcher.push(await through(batcher, perTurn));
    r.here.push(inPlace());
  }
  console.log(`${perTurn} intent(s) per turn, ${WORKERS} worker(s): serving-thread CPU µs per intent (2 verifies), median of ${RUNS}: batcher ${median(r.batcher)} · in place ${median(r.here)}`);
}
await batcher.close();
clearInterval(keepAlive);
