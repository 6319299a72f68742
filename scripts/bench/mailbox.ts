// Mailbox benchmark (issue 20): how fast a home node collects what its mailbox holds, and what the
// detour costs a message, against direct delivery measured in the same run on the same machine.
// Three in-process nodes over real TLS on loopback (the test fixtures): Carol keeps the mailbox,
// "home" is reached only through it (KITH_MAILBOX_URL), "direct" is the same agent reached at its
// own endpoint (the baseline). Bob sends distinct, freshly signed `ask`s (he is connected to both).
//   - throughput: a batch is POSTed to the direct endpoint one by one (stored per request), and the
//     same batch size is left in the mailbox and drained (long-poll rounds of 16, processed through
//     the receiver, acknowledged): messages per second of each, and their ratio;
//   - latency: one message with the home's drain already waiting (long-poll), from Bob's POST to
//     the home having committed and acknowledged it, against one direct POST answered 202 (stored, held for the owner under the default autonomy).
// Rate windows are reset between batches by moving the shared test clock on an hour.
// Usage: bun scripts/bench/mailbox.ts [batches=5] [batch=50] [latencySamples=30]
import { connections, ownerPolicy } from "../../src/db/schema/index.ts";
import { drainMailbox } from "../../src/domain/mailbox/drain-mailbox.ts";
import { publishCardToMailbox } from "../../src/domain/mailbox/publish-card-to-mailbox.ts";
import { normalizePrincipal } from "../../src/ink/index.ts";
import { bootNetworkNode, type NetworkNode, type TestNode } from "../../test/helpers/boot.ts";
import { testClock } from "../../test/helpers/clock.ts";
import { signedIntent } from "../../test/helpers/ink.ts";
import { asOwner } from "../../test/helpers/owner.ts";
import { testCa } from "../../test/helpers/tls.ts";

const BATCHES = Number(process.argv[2] ?? 5);
const BATCH = Number(process.argv[3] ?? 50);
const SAMPLES = Number(process.argv[4] ?? 30);

const clock = testClock();
const carol = await bootNetworkNode({ name: "carol", clock });
const home = await bootNetworkNode({ name: "alice", clock, mailboxUrl: `${carol.url}/mailbox` });
const direct = await bootNetworkNode({ name: "alice", clock });
const bob = await bootNetworkNode({ name: "bob", clock });
for (const node of [home, direct]) prepare(node);
await asOwner(carol, "/api/svc/mailboxes", { body: { agentId: home.agentId, maxMessages: 100_000 } });
const published = await publishCardToMailbox(home.ctx());
if (!published.ok) throw new Error(published.error);

const homeAsPeersSeeIt = { ...home, publicUrl: `${carol.url}/mailbox` } as TestNode;
const post = (url: string, req: { body: string; authorization: string }) =>
  fetch(url.replace(/^https:\/\/[a-z]+\.kith\.test:/, "https://localhost:"), { method: "POST", headers: { "content-type": "application/json", authorization: req.authorization }, body: req.body, tls: { ca: testCa() } } as RequestInit);
const intake = `${carol.url}/mailbox/ink/v1/${encodeURIComponent(home.agentId!)}/intent`;
const directUrl = `${direct.url}/ink/v1/${encodeURIComponent(direct.agentId!)}/intent`;
const ask = (to: TestNode, i: number) => signedIntent("bob", to, { intent: "ask", payload: { question: `Question ${i}: ${"lorem ipsum ".repeat(40)}` } });
const drainAll = async () => {
  let received = 0;
  while (true) {
    const round = await drainMailbox(home.ctx({ kind: "system", job: "mailbox" }), { waitMs: 0 });
    if (!round.ok) throw new Error(round.error);
    received += round.received;
    if (round.acknowledged === 0) return received;
  }
};

const directRates: number[] = [];
const drainRates: number[] = [];
for (let b = 0; b < BATCHES + 1; b++) {
  clock.advance(3_600_001);
  const toDirect = Array.from({ length: BATCH }, (_, i) => ask(direct, i));
  let t = performance.now();
  for (const req of toDirect) expectStatus(await post(directUrl, req), 202);
  const directMs = performance.now() - t;
  clock.advance(3_600_001);
  for (let i = 0; i < BATCH; i++) expectStatus(await post(intake, ask(homeAsPeersSeeIt, i)), 202);
  t = performance.now();
  const received = await drainAll();
  const drainMs = performance.now() - t;
  if (received !== BATCH) throw new Error(`drained ${received} of ${BATCH}`);
  if (b === 0) continue; // warm-up
  directRates.push((BATCH / directMs) * 1000);
  drainRates.push((BATCH / drainMs) * 1000);
}

const directLatency: number[] = [];
const mailboxLatency: number[] = [];
clock.advance(3_600_001);
for (let i = 0; i < SAMPLES; i++) {
  if (i % 40 === 39) clock.advance(3_600_001);
  let t = performance.now();
  expectStatus(await post(directUrl, ask(direct, i)), 202);
  directLatency.push(performance.now() - t);
  const waiting = drainMailbox(home.ctx({ kind: "system", job: "mailbox" }), { waitMs: 5_000 });
  await Bun.sleep(20); // the drain is held open at the mailbox
  t = performance.now();
  expectStatus(await post(intake, ask(homeAsPeersSeeIt, i)), 202);
  const round = await waiting;
  if (!round.ok || round.received !== 1) throw new Error(`latency round: ${JSON.stringify(round)}`);
  mailboxLatency.push(performance.now() - t);
}

const med = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const p90 = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length * 0.9)]!;
console.log(`mailbox bench: ${BATCHES} batches of ${BATCH} asks (~${ask(direct, 0).body.length} B), ${SAMPLES} latency samples; in-process nodes over TLS on loopback`);
console.log(`throughput  direct POSTs, one by one     median ${med(directRates).toFixed(0)} msg/s  (runs: ${directRates.map((r) => r.toFixed(0)).join(", ")})`);
console.log(`throughput  mailbox drain (16 per round) median ${med(drainRates).toFixed(0)} msg/s  (runs: ${drainRates.map((r) => r.toFixed(0)).join(", ")})`);
console.log(`            drain / direct = ${(med(drainRates) / med(directRates)).toFixed(2)}`);
console.log(`latency     direct POST → 202             median ${med(directLatency).toFixed(1)} ms, p90 ${p90(directLatency).toFixed(1)} ms`);
console.log(`latency     POST to mailbox → committed and acknowledged at home (drain waiting)  median ${med(mailboxLatency).toFixed(1)} ms, p90 ${p90(mailboxLatency).toFixed(1)} ms`);
console.log(`            added by the mailbox: median ${(med(mailboxLatency) - med(directLatency)).toFixed(1)} ms (${(med(mailboxLatency) / med(directLatency)).toFixed(2)}× direct)`);
for (const node of [carol, home, direct, bob] as NetworkNode[]) await node.stop();

/** Bob is connected to the home agent, who takes up to 10,000 intents an hour from him. */
function prepare(node: TestNode) {
  const now = clock.now();
  const principal = normalizePrincipal(bob.agentId!);
  if (!principal.ok) throw new Error("bob");
  node.db.insert(connections).values({ id: "con_bob", principal: principal.principal, agentId: bob.agentId, cardUrl: bob.cardUrl, status: "connected", initiatedBy: "us", createdAt: now, updatedAt: now }).run();
  node.db.insert(ownerPolicy).values({ id: 1, maxAutonomyLevel: "draft_only", maxInboundRate: 10_000, acceptForeignAgents: true, updatedAt: now }).onConflictDoUpdate({ target: ownerPolicy.id, set: { maxInboundRate: 10_000 } }).run();
}

function expectStatus(res: Response, status: number) {
  if (res.status !== status) throw new Error(`expected ${status}, got ${res.status}`);
}
