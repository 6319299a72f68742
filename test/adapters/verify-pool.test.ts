// The Ed25519 verify pool (src/adapters/verify-pool.ts, src/security/preverify.ts): same verdicts as the calling thread's
// nativeStrictVerifier, each batch answered with its own verdicts, back-pressure onto the calling
// thread, a crashed worker's batches verified anyway, and a clean shutdown.
import { afterAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { nativeStrictVerifier } from "../../src/security/ed25519-native.ts";
import { createCryptoBatcher } from "../../src/adapters/crypto-batch.ts";
import { createVerifyPool } from "../../src/adapters/verify-pool.ts";
import { preverify } from "../../src/security/preverify.ts";
import { expectedVerdicts, verifyCalls } from "../helpers/verify-calls.ts";
import { loadVectorFiles } from "../ink/conformance/fixtures.ts";
import { HANDLERS, SIGNATURE_CATEGORIES } from "../ink/conformance/handlers.ts";

const calls = verifyCalls;
const expected = expectedVerdicts;

const pools: Array<{ close(): Promise<void> }> = [];
afterAll(async () => {
  for (const p of pools) await p.close();
});

describe("verify pool", () => {
  test("concurrent batches each get their own verdicts, in order, equal to the calling thread's", async () => {
    const pool = createVerifyPool({ workers: 2, maxInFlight: 1000 });
    pools.push(pool);
    const batches = Array.from({ length: 40 }, (_, b) => calls(1 + (b % 5), `batch${b}`));
    const results = await Promise.all(batches.map((b) => pool.verifyAll(b)));
    results.forEach((r, b) => expect(r).toEqual(expected(batches[b]!)));
    expect(results.flat()).toContain(true);
    expect(results.flat()).toContain(false);
    expect(pool.stats()).toEqual({ inFlight: 0, verifiedHere: 0, crashes: 0 }); // all of them went to workers
  });

  test("back-pressure: past its in-flight cap a batch is verified on the calling thread, nothing queues without bound", async () => {
    const pool = createVerifyPool({ workers: 1, maxInFlight: 2 });
    pools.push(pool);
    const batches = Array.from({ length: 10 }, (_, b) => calls(2, `bp${b}`));
    const pending = batches.map((b) => pool.verifyAll(b));
    expect(pool.stats().inFlight).toBe(2);
    expect(pool.stats().verifiedHere).toBe(8);
    const results = await Promise.all(pending);
    results.forEach((r, b) => expect(r).toEqual(expected(batches[b]!)));
    expect(pool.stats().inFlight).toBe(0);
  });

  test("a worker that crashes: what it held is verified on the calling thread, the slot restarts, then is given up", async () => {
    const pool = createVerifyPool({ workers: 1, entry: join(import.meta.dir, "../fixtures/crashing-verify-worker.ts"), maxRestarts: 2 });
    pools.push(pool);
    for (let round = 0; round < 5; round++) {
      const batch = calls(4, `crash${round}`);
      expect(await pool.verifyAll(batch)).toEqual(expected(batch));
    }
    const stats = pool.stats();
    expect(stats.crashes).toBe(3); // the first start and two restarts
    expect(stats.verifiedHere).toBe(5); // three handed back by a dead worker, two after the slot was given up
    expect(stats.inFlight).toBe(0);
  });

  test("shutdown: batches held by workers still resolve, later ones run on the calling thread", async () => {
    const pool = createVerifyPool({ workers: 2 });
    const batches = Array.from({ length: 6 }, (_, b) => calls(3, `close${b}`));
    const pending = batches.map((b) => pool.verifyAll(b));
    await pool.close();
    (await Promise.all(pending)).forEach((r, b) => expect(r).toEqual(expected(batches[b]!)));
    const after = calls(3, "after");
    expect(await pool.verifyAll(after)).toEqual(expected(after));
    expect(pool.stats()).toMatchObject({ inFlight: 0, crashes: 0 });
  });

  test("a pool of no workers verifies on the calling thread", async () => {
    const pool = createVerifyPool({ workers: 0 });
    const batch = calls(4, "none");
    expect(await pool.verifyAll(batch)).toEqual(expected(batch));
    expect(pool.stats().verifiedHere).toBe(1);
  });
});

// Every signature-based conformance case, decided with a pool's verdicts (record, verify on a
// worker, decide again) and with nativeStrictVerifier on this thread: the same outcome each time.
// Both pools: the verify pool, and the crypto batcher `kith serve` gives the inbound path.
for (const [name, make] of [
  ["verify pool", () => createVerifyPool({ workers: 1, maxInFlight: 100_000 })],
  ["crypto batcher", () => createCryptoBatcher({ workers: 1, maxInFlight: 100_000 })],
] as const) describe(`preverify through the ${name} gives the decisions of the native verifier`, () => {
  const pool = make();
  pools.push(pool);
  for (const file of loadVectorFiles().filter((f) => SIGNATURE_CATEGORIES.has(f.category) && HANDLERS[f.category])) {
    test(`conformance ${file.category}: ${file.cases.length} cases`, async () => {
      const handler = HANDLERS[file.category]!;
      for (const c of file.cases) {
        const verifier = await preverify(pool, (v) => {
          try {
            handler(c.input, v);
          } catch {}
        });
        const pooled = (() => {
          try {
            return handler(c.input, verifier);
          } catch (e) {
            return { threw: String(e) };
          }
        })();
        const native = (() => {
          try {
            return handler(c.input, nativeStrictVerifier);
          } catch (e) {
            return { threw: String(e) };
          }
        })();
        expect({ caseId: c.caseId, outcome: pooled }).toEqual({ caseId: c.caseId, outcome: native });
      }
    });
  }
});
