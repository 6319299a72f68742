// The inbound intent's `message.received` audit event, recorded in place (no worker: the event
// built, signed and stored inside the write job) against signed ahead on the crypto batcher
// (prepared, signed on a worker, stored as built): the serving thread's CPU per event
// (process.threadCpuUsage: the worker excluded), P events of distinct peers' chains per turn, each
// turn one group-committed transaction as the write queue runs it. Each event's intent also has its
// two signatures verified on the batcher in the same turn (both variants), as a serving node's turns
// carry new intents' verifies beside earlier intents' signatures: what is compared is the sign in
// place against its share of a message that goes anyway. Interleaved, medians of RUNS.
// Usage: bun scripts/bench/inbound-audit-sign.ts [events=4000] [perTurn=4] [runs=7]
import { createCryptoBatcher } from "../../src/adapters/crypto-batch.ts";
import { transaction } from "../../src/db/client.ts";
import { recordInkEvent } from "../../src/domain/audit/record-ink-event.ts";
import { recordSignedInkEvent, signInkEventAhead } from "../../src/domain/internal/ink-events-ahead.ts";
import { ed25519Sign, generateEd25519KeyPair } from "../../src/ink/index.ts";
import { bootTestApp, type TestNode } from "../../test/helpers/boot.ts";

const EVENTS = Number(process.argv[2] ?? 4000);
const PER_TURN = Number(process.argv[3] ?? 4);
const RUNS = Number(process.argv[4] ?? 7);
const keepAlive = setInterval(() => {}, 1 << 30); // a server's listening socket

const inPlace = bootTestApp({ crypto: createCryptoBatcher({ workers: 0 }) });
const batcher = createCryptoBatcher({ workers: 1 });
const ahead = bootTestApp({ crypto: batcher });
const threadNow = () => {
  const u = process.threadCpuUsage();
  return u.user + u.system;
};
const sender = generateEd25519KeyPair(new Uint8Array(32).fill(3));
const bodies = Array.from({ length: 2 }, (_, i) => new TextEncoder().encode(`{"intent":"ask","nonce":"n-${i}","payload":"${"x".repeat(1200)}"}`));
const verifies = bodies.map((message) => ({ publicKey: sender.publicKey, message, signature: ed25519Sign(message, sender.secretKey) }));
let n = 0;
const entry = () => {
  const i = n++;
  return { peer: `key:z6MkPeer${i % 64}`, entry: { eventType: "message.received", messageId: `bench-${i}`, correlationId: `thread-${i}`, counterpartyId: `svc:z6MkPeer${i % 64}` } };
};

async function run(node: TestNode, signed: boolean): Promise<number> {
  const ctx = node.ctx();
  const t0 = threadNow();
  for (let done = 0; done < EVENTS; done += PER_TURN) {
    const turn = Array.from({ length: PER_TURN }, entry);
    const verified = Promise.all(turn.map(() => batcher.verifyAll(verifies)));
    if (signed) {
      const [events] = await Promise.all([Promise.all(turn.map((e) => signInkEventAhead(ctx, e.peer, e.entry))), verified]);
      transaction(node.db, (tx) => events.forEach((e) => recordSignedInkEvent(tx, ctx, e!)));
    } else {
      await verified;
      transaction(node.db, (tx) => turn.forEach((e) => recordInkEvent(tx, ctx, e.peer, e.entry)));
    }
  }
  return (threadNow() - t0) / EVENTS;
}

await run(inPlace, false);
await run(ahead, true);
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!.toFixed(1);
const r = { inPlace: [] as number[], ahead: [] as number[] };
for (let i = 0; i < RUNS; i++) {
  r.inPlace.push(await run(inPlace, false));
  r.ahead.push(await run(ahead, true));
}
const count = (node: TestNode) => node.db.$client.query<{ n: number }, []>("SELECT count(*) AS n FROM audit_events").get()!.n;
console.log(`audit event per inbound intent, ${PER_TURN} per turn, serving-thread CPU µs per event, medians of ${RUNS}: in place ${median(r.inPlace)} · signed ahead on a worker ${median(r.ahead)}   (${count(inPlace)} and ${count(ahead)} events stored; ${batcher.stats().messages} messages, ${batcher.stats().computedHere} batches computed here)`);
await batcher.close();
inPlace.close();
ahead.close();
clearInterval(keepAlive);
