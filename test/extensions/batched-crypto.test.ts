// The extension path with its Ed25519 work batched onto a worker (adapters/crypto-batch.ts;
// docs/decisions/extensions.md §13): check 7's verify and the audit event's signature. Two nodes
// in the same state, one batching (a worker) and one with no worker (the synchronous path), get
// the same requests, many in one turn: the same answers, and audit chains byte for byte equal.
import { afterAll, afterEach, expect, test } from "bun:test";
import { join } from "node:path";
import { createCryptoBatcher, type CryptoBatcher } from "../../src/adapters/crypto-batch.ts";
import { verifyAuditEventChain, type AuditEvent } from "../../src/ink/audit.ts";
import { bootTestApp, type TestNode } from "../helpers/boot.ts";
import { acmeKey, extRequest, installAcme } from "../helpers/extensions.ts";

const nodes: TestNode[] = [];
const batchers: CryptoBatcher[] = [];
afterEach(() => {
  for (const n of nodes.splice(0)) n.close();
});
afterAll(async () => {
  for (const b of batchers) await b.close();
});
const batcher = (options: Parameters<typeof createCryptoBatcher>[0]) => {
  const b = createCryptoBatcher(options);
  batchers.push(b);
  return b;
};

/** A turn's worth of requests of every kind check 7 decides, plus earlier refusals and a nonce sent twice. */
async function sendMix(node: TestNode, token: string) {
  const other = acmeKey(1).secretKey;
  const sends: Array<() => Promise<Response>> = [];
  for (let i = 0; i < 40; i++) {
    const nonce = `batched-${i.toString().padStart(8, "0")}`;
    switch (i % 8) {
      case 1: // signed by a key that is not the token's
        sends.push(() => extRequest(node, token, "GET", "/ext/v1/identity", { nonce, secretKey: other }));
        break;
      case 3: // forged: a signature of another request
        sends.push(() => extRequest(node, token, "GET", "/ext/v1/identity", { nonce, headers: { "x-extension-signature": Buffer.alloc(64, 7).toString("base64url") } }));
        break;
      case 5: // not base64url of 64 bytes
        sends.push(() => extRequest(node, token, "GET", "/ext/v1/identity", { nonce, headers: { "x-extension-signature": "not-a-signature" } }));
        break;
      case 7: // check 5 fails before 7 (and the signature is wrong too): check 5's refusal
        sends.push(() => extRequest(node, token, "GET", "/ext/v1/identity", { nonce, secretKey: other, timestamp: "2001-01-01T00:00:00Z" }));
        break;
      default:
        sends.push(() => extRequest(node, token, "GET", i % 4 === 2 ? "/ext/v1/profile" : "/ext/v1/identity", { nonce }));
    }
  }
  sends.push(() => extRequest(node, token, "GET", "/ext/v1/identity", { nonce: "batched-00000000" })); // the same nonce twice in one turn
  const answers = await Promise.all(sends.map((s) => s()));
  return Promise.all(answers.map(async (a) => `${a.status} ${a.status === 200 ? "" : ((await a.json()) as { error: string }).error}`));
}

function chain(node: TestNode, installationId: string): string[] {
  return node.db.$client
    .query<{ eventJson: string }, [string]>("SELECT event_json AS eventJson FROM audit_events WHERE chain_id = ? ORDER BY sequence")
    .all(installationId)
    .map((r) => r.eventJson);
}

async function run(crypto: CryptoBatcher) {
  const node = bootTestApp({ crypto });
  nodes.push(node);
  const { token, installationId } = await installAcme(node);
  const first = await sendMix(node, token);
  const second = await sendMix(node, token); // every nonce again: all replays
  return { first, second, chain: chain(node, installationId) };
}

test("batched on a worker: every answer and every stored audit event equal the synchronous path's", async () => {
  const pooled = batcher({ workers: 1 });
  const batched = await run(pooled);
  const inPlace = await run(batcher({ workers: 0 }));
  expect(batched.first).toEqual(inPlace.first);
  expect(batched.second).toEqual(inPlace.second);
  expect(new Set(batched.first)).toEqual(new Set(["200 ", "401 signature_invalid", "401 timestamp_out_of_window", "401 nonce_replayed"]));
  expect(new Set(batched.second)).toEqual(new Set(["401 signature_invalid", "401 timestamp_out_of_window", "401 nonce_replayed"]));
  // the stored events, byte for byte: the worker's signatures are the in-place signer's
  expect(batched.chain).toEqual(inPlace.chain);
  const events = batched.chain.map((j) => JSON.parse(j) as AuditEvent);
  expect(verifyAuditEventChain(events)).toMatchObject({ ok: true });
  expect(events.filter((e) => e.eventType === "delegation.used")).toHaveLength(batched.first.filter((s) => s === "200 ").length);
  // the work went to the worker, a few messages for dozens of requests
  const { messages, computedHere, crashes } = pooled.stats();
  expect({ computedHere, crashes }).toEqual({ computedHere: 0, crashes: 0 });
  expect(messages).toBeGreaterThan(0);
  expect(messages).toBeLessThan(20);
});

test("a worker that crashes: the requests it held are decided and signed on the serving thread, the same", async () => {
  const crashing = batcher({ workers: 1, entry: join(import.meta.dir, "../fixtures/crashing-verify-worker.ts"), maxRestarts: 1 });
  const batched = await run(crashing);
  const inPlace = await run(batcher({ workers: 0 }));
  expect(batched.first).toEqual(inPlace.first);
  expect(batched.second).toEqual(inPlace.second);
  expect(batched.chain).toEqual(inPlace.chain);
  expect(crashing.stats().crashes).toBeGreaterThan(0);
});

test("no worker: the synchronous path, the batcher is never asked", async () => {
  const refuse = () => {
    throw new Error("a node with no worker asked its batcher");
  };
  const node = bootTestApp({ crypto: { size: 0, verifyAll: refuse, sign: refuse } });
  nodes.push(node);
  const { token } = await installAcme(node);
  const answers = await sendMix(node, token);
  expect(answers.filter((a) => a === "200 ").length).toBeGreaterThan(0);
  expect(answers).toContain("401 signature_invalid");
});
