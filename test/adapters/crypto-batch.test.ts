// The cross-request Ed25519 batcher (src/adapters/crypto-batch.ts): the calls of one turn go to a
// worker in one message; verdicts equal the calling thread's nativeStrictVerifier, signatures are
// byte-identical to nativeEd25519Sign, promises resolve in call order, a crashed worker's calls
// are computed anyway, close() with calls in flight loses none, no workers = the calling thread.
import { afterAll, describe, expect, test } from "bun:test";
import { rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { nativeEd25519Sign } from "../../src/security/ed25519-native.ts";
import { createCryptoBatcher, type CryptoBatcher } from "../../src/adapters/crypto-batch.ts";
import { expectedVerdicts, testPairs, verifyCalls } from "../helpers/verify-calls.ts";

const enc = new TextEncoder();
const calls = verifyCalls;
const expected = expectedVerdicts;
const signInputs = (n: number, salt: string) => Array.from({ length: n }, (_, i) => ({ message: enc.encode(`ink/audit-event\n{"n":${i},"s":"${salt}"}`), secretKey: testPairs[i % 3]!.secretKey.subarray(0, 32) }));

/** What the first worker of test/fixtures/stuck-crypto-batch-worker.ts claims to be the one that does not answer. */
const stuckWorkerClaim = () => join(tmpdir(), `kith-stuck-worker-${process.pid}`);
const batchers: CryptoBatcher[] = [];
const make = (o: Parameters<typeof createCryptoBatcher>[0]) => {
  const b = createCryptoBatcher(o);
  batchers.push(b);
  return b;
};
afterAll(async () => {
  for (const b of batchers) await b.close();
});

describe("crypto batcher", () => {
  test("the calls of one turn go in one message; verdicts equal the calling thread's, signatures byte-identical", async () => {
    const b = make({ workers: 1, maxBatch: 1000 });
    const batches = Array.from({ length: 40 }, (_, k) => calls(1 + (k % 5), `batch${k}`));
    const signs = signInputs(40, "one-turn");
    const [verdicts, signatures] = await Promise.all([Promise.all(batches.map((c) => b.verifyAll(c))), Promise.all(signs.map((s) => b.sign(s.message, s.secretKey)))]);
    verdicts.forEach((r, k) => expect(r).toEqual(expected(batches[k]!)));
    expect(verdicts.flat()).toContain(true);
    expect(verdicts.flat()).toContain(false);
    signatures.forEach((sig, k) => expect(Buffer.from(sig).toString("hex")).toBe(Buffer.from(nativeEd25519Sign(signs[k]!.message, signs[k]!.secretKey)).toString("hex")));
    expect(b.stats()).toEqual({ inFlight: 0, computedHere: 0, messages: 1, crashes: 0 });
  });

  test("a later turn is another message; several workers share a large turn; promises resolve in call order", async () => {
    const b = make({ workers: 3, minPart: 4, maxBatch: 1000 });
    const resolved: number[] = [];
    const signs = signInputs(60, "order");
    const all = signs.map((s, k) => b.sign(s.message, s.secretKey).then((sig) => (resolved.push(k), sig)));
    const sigs = await Promise.all(all);
    expect(resolved).toEqual(signs.map((_, k) => k));
    sigs.forEach((sig, k) => expect(sig).toEqual(nativeEd25519Sign(signs[k]!.message, signs[k]!.secretKey)));
    expect(b.stats().messages).toBe(3);
    const later = calls(7, "later");
    expect(await b.verifyAll(later)).toEqual(expected(later));
    expect(b.stats()).toMatchObject({ messages: 4, computedHere: 0 });
  });

  test("a full batch goes at once, before the turn ends; answers still in call order", async () => {
    const b = make({ workers: 1, maxBatch: 4 });
    const resolved: number[] = [];
    const signs = signInputs(10, "full");
    const sigs = await Promise.all(signs.map((s, k) => b.sign(s.message, s.secretKey).then((sig) => (resolved.push(k), sig))));
    expect(resolved).toEqual(signs.map((_, k) => k));
    sigs.forEach((sig, k) => expect(sig).toEqual(nativeEd25519Sign(signs[k]!.message, signs[k]!.secretKey)));
    expect(b.stats()).toMatchObject({ messages: 3, computedHere: 0 }); // 4, 4, and the turn's last 2
  });

  test("the worker's remembered key follows the key each call carries (a rotation signs with the new key at once)", async () => {
    const b = make({ workers: 1 });
    const message = enc.encode("ink/audit-event\n{}");
    for (const k of [0, 1, 1, 0, 2]) {
      const key = testPairs[k]!.secretKey.subarray(0, 32);
      expect(await b.sign(message, key)).toEqual(nativeEd25519Sign(message, key));
    }
    // two keys within one batch
    const [x, y] = await Promise.all([b.sign(message, testPairs[3]!.secretKey.subarray(0, 32)), b.sign(message, testPairs[4]!.secretKey.subarray(0, 32))]);
    expect([x, y]).toEqual([nativeEd25519Sign(message, testPairs[3]!.secretKey.subarray(0, 32)), nativeEd25519Sign(message, testPairs[4]!.secretKey.subarray(0, 32))]);
    expect(b.stats()).toMatchObject({ messages: 6, computedHere: 0 });
  });

  test("back-pressure: past its in-flight cap and what may wait a turn's calls are computed on the calling thread", async () => {
    const b = make({ workers: 1, maxInFlight: 1, maxQueued: 0 });
    const first = calls(6, "bp-a");
    const pending = [b.verifyAll(first)];
    await new Promise((r) => setImmediate(r)); // the first turn is flushed to the worker
    const second = calls(6, "bp-b");
    pending.push(b.verifyAll(second));
    const results = await Promise.all(pending);
    expect(results).toEqual([expected(first), expected(second)]);
    expect(b.stats()).toMatchObject({ messages: 1, computedHere: 1, inFlight: 0 });
  });

  test("a worker that does not answer holds at most its two parts: later turns go to the worker that frees up; nothing is lost", async () => {
    rmSync(stuckWorkerClaim(), { recursive: true, force: true });
    const b = make({ workers: 2, minPart: 1, entry: join(import.meta.dir, "../fixtures/stuck-crypto-batch-worker.ts") });
    const turns = Array.from({ length: 12 }, (_, k) => calls(4, `stuck${k}`));
    const pending: Array<Promise<boolean[]>> = [];
    for (const turn of turns) {
      pending.push(b.verifyAll(turn));
      await new Promise((r) => setImmediate(r)); // each its own turn, so its own batch
    }
    // the free worker answers what it holds and takes what waits; the stuck one keeps its own
    for (let i = 0; i < 2_000 && b.stats().inFlight > 2; i++) await new Promise((r) => setTimeout(r, 1));
    expect(b.stats().inFlight).toBeLessThanOrEqual(2);
    const release = new BroadcastChannel("crypto-batch-release");
    release.postMessage("go");
    const results = await Promise.all(pending);
    release.close();
    rmSync(stuckWorkerClaim(), { recursive: true, force: true });
    results.forEach((r, k) => expect(r).toEqual(expected(turns[k]!)));
    expect(b.stats()).toMatchObject({ inFlight: 0, computedHere: 0, crashes: 0 });
  });

  test("a worker that crashes: what it held is computed on the calling thread, the slot restarts, then is given up", async () => {
    const b = make({ workers: 1, entry: join(import.meta.dir, "../fixtures/crashing-verify-worker.ts"), maxRestarts: 2 });
    for (let round = 0; round < 5; round++) {
      const batch = calls(6, `crash${round}`);
      const s = signInputs(2, `crash${round}`);
      const [v, sigs] = await Promise.all([b.verifyAll(batch), Promise.all(s.map((x) => b.sign(x.message, x.secretKey)))]);
      expect(v).toEqual(expected(batch));
      sigs.forEach((sig, k) => expect(sig).toEqual(nativeEd25519Sign(s[k]!.message, s[k]!.secretKey)));
    }
    expect(b.stats()).toMatchObject({ crashes: 3, computedHere: 5, inFlight: 0 }); // three handed back, two after the slot was given up
  });

  test("close() with calls in flight: they still resolve, correctly; later calls run on the calling thread", async () => {
    const b = make({ workers: 2, minPart: 2 });
    const batches = Array.from({ length: 6 }, (_, k) => calls(3, `close${k}`));
    const s = signInputs(6, "close");
    const pending = Promise.all([Promise.all(batches.map((c) => b.verifyAll(c))), Promise.all(s.map((x) => b.sign(x.message, x.secretKey)))]);
    await new Promise((r) => setImmediate(r)); // flushed: the workers hold them
    expect(b.stats().inFlight).toBeGreaterThan(0);
    await b.close();
    const [v, sigs] = await pending;
    v.forEach((r, k) => expect(r).toEqual(expected(batches[k]!)));
    sigs.forEach((sig, k) => expect(sig).toEqual(nativeEd25519Sign(s[k]!.message, s[k]!.secretKey)));
    const after = calls(3, "after");
    expect(await b.verifyAll(after)).toEqual(expected(after));
    expect(b.stats()).toMatchObject({ inFlight: 0, crashes: 0 });
  });

  test("the workers report the CPU time they used (what the benchmark divides per request)", async () => {
    const b = make({ workers: 1 });
    expect(b.workerCpuUs()).toBe(0);
    const batch = calls(40, "cpu");
    expect(await b.verifyAll(batch)).toEqual(expected(batch));
    const after = b.workerCpuUs();
    expect(after).toBeGreaterThan(0); // 40 verifies on the worker: its thread's CPU, reported with the answer
    await b.verifyAll(calls(4, "cpu2"));
    expect(b.workerCpuUs()).toBeGreaterThanOrEqual(after);
    expect(make({ workers: 0 }).workerCpuUs()).toBe(0);
  });

  test("a turn whose only calls are of odd sizes (answered at once, nothing to send) still resolves, in order", async () => {
    const b = make({ workers: 1 });
    const odd = calls(6, "odd").filter((c) => c.publicKey.length !== 32);
    expect(odd.length).toBeGreaterThan(0);
    expect(await b.verifyAll(odd)).toEqual(expected(odd));
    const later = calls(3, "after-odd");
    const [x, y] = await Promise.all([b.verifyAll(odd), b.verifyAll(later)]);
    expect([x, y]).toEqual([expected(odd), expected(later)]);
  });

  test("no workers: everything on the calling thread", async () => {
    const b = make({ workers: 0 });
    expect(b.size).toBe(0);
    const batch = calls(6, "none");
    expect(await b.verifyAll(batch)).toEqual(expected(batch));
    expect(b.stats()).toMatchObject({ messages: 0, computedHere: 1 });
  });
});
