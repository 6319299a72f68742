// The inbound path's signatures verified elsewhere (src/security/preverify.ts through the crypto
// batcher, src/adapters/crypto-batch.ts) decide exactly as the calling thread's nativeStrictVerifier.
import { afterAll, describe, expect, test } from "bun:test";
import { createCryptoBatcher } from "../../src/adapters/crypto-batch.ts";
import { nativeStrictVerifier } from "../../src/security/ed25519-native.ts";
import { preverify } from "../../src/security/preverify.ts";
import { loadVectorFiles } from "../ink/conformance/fixtures.ts";
import { HANDLERS, SIGNATURE_CATEGORIES } from "../ink/conformance/handlers.ts";

const pools: Array<{ close(): Promise<void> }> = [];
afterAll(async () => {
  for (const p of pools) await p.close();
});

// Every signature-based conformance case, decided with a pool's verdicts (record, verify on a
// worker, decide again) and with nativeStrictVerifier on this thread: the same outcome each time.
// The pool is the crypto batcher `kith serve` gives the inbound path (its own mechanics, crashes,
// back-pressure and shutdown: crypto-batch.test.ts).
describe("preverify through the crypto batcher gives the decisions of the native verifier", () => {
  const pool = createCryptoBatcher({ workers: 1, maxInFlight: 100_000 });
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
