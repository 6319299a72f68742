import { afterEach, beforeEach, expect, test } from "bun:test";
import { eq } from "drizzle-orm";
import { mailboxItems, messages } from "../../src/db/schema/index.ts";
import { drainMailbox } from "../../src/domain/mailbox/drain-mailbox.ts";
import { publishCardToMailbox } from "../../src/domain/mailbox/publish-card-to-mailbox.ts";
import { pruneNonces } from "../../src/domain/peers/prune-nonces.ts";
import { bootNetworkNode, stopNodes, type NetworkNode, type TestNode } from "../helpers/boot.ts";
import { signedIntent } from "../helpers/ink.ts";
import { asOwner } from "../helpers/owner.ts";
import { json } from "../helpers/process.ts";
import { testClock } from "../helpers/clock.ts";

let carol: NetworkNode; // keeps the mailbox
let alice: NetworkNode; // the home node: reached only through carol
let bob: NetworkNode; // a peer

beforeEach(async () => {
  const clock = testClock();
  carol = await bootNetworkNode({ name: "carol", clock });
  alice = await bootNetworkNode({ name: "alice", clock, mailboxUrl: `${carol.url}/mailbox` });
  bob = await bootNetworkNode({ name: "bob", clock });
  expect((await asOwner(carol, "/api/svc/mailboxes", { body: { agentId: alice.agentId } })).status).toBe(201);
});
afterEach(() => stopNodes(carol, alice, bob));

const drain = () => drainMailbox(alice.ctx({ kind: "system", job: "mailbox" }), { waitMs: 0 });
const inbound = (node: TestNode) => node.db.select().from(messages).where(eq(messages.direction, "in")).all();
const held = () => carol.db.select().from(mailboxItems).all();

/** Bob connects to Alice by the card URL her mailbox serves; she accepts. */
async function connect() {
  expect(await publishCardToMailbox(alice.ctx())).toEqual({ ok: true, published: true });
  expect((await asOwner(bob, "/api/svc/connections", { body: { cardUrl: alice.cardUrl, context: "Met at the meetup" } })).status).toBe(202);
  await bob.drainOutbox();
  expect(held()).toHaveLength(1);
  expect(await drain()).toMatchObject({ ok: true, received: 1, acknowledged: 1 });
  expect(held()).toEqual([]);
  const pending = (await json(await asOwner(alice, "/api/svc/pending"))).items[0];
  expect(pending).toMatchObject({ kind: "connection_request", message: { from: bob.agentId } });
  expect((await asOwner(alice, `/api/svc/pending/${pending.id}`, { body: { decision: "approve" } })).status).toBe(200);
  await alice.drainOutbox(); // the answer goes straight to Bob: sending needs nothing new
  expect((await json(await asOwner(bob, "/api/svc/connections?status=connected"))).items).toHaveLength(1);
}

test("the mailbox serves the card the home signed, naming the mailbox as its endpoint; the home's own paths are not its card", async () => {
  expect((await carol.request(`/mailbox/ink/v1/${encodeURIComponent(alice.agentId!)}/agent.json`)).status).toBe(404);
  expect(await publishCardToMailbox(alice.ctx())).toEqual({ ok: true, published: true });
  expect(await publishCardToMailbox(alice.ctx())).toEqual({ ok: true, published: false }); // unchanged: not sent again
  const served = await json(await carol.request(`/mailbox/ink/v1/${encodeURIComponent(alice.agentId!)}/agent.json`));
  const own = await json(await alice.request(`/ink/v1/${encodeURIComponent(alice.agentId!)}/agent.json`));
  expect(served).toEqual(own);
  expect(served.endpoint).toBe(`${carol.url}/mailbox/ink/v1/${alice.agentId}/intent`);
  expect(served.cardSignature).toBeDefined();
  // Receipts and audit queries go to the endpoint's origin (AUDIT [A4]): the mailbox node's, which
  // takes neither for Alice, so her card does not advertise them (peers would send them to Carol).
  expect(Object.keys(served.capabilities).sort()).toEqual(["intentsAccepted", "intentsSent"]);
  expect((await json(await asOwner(carol, "/api/svc/mailboxes"))).items[0].cardPublishedAt).not.toBeNull();
});

test("a peer connects and sends a sealed schedule_meeting and an ask through the mailbox; the home drains, answers, the peer sees the thread", async () => {
  await connect();
  const meeting = await json(await asOwner(bob, "/api/svc/intents", { body: { to: alice.agentId, intent: "schedule_meeting", payload: { proposedTimes: ["2026-07-01T10:00:00Z"], topic: "Kickoff", format: "video", urgency: "normal" } } }));
  const ask = await json(await asOwner(bob, "/api/svc/intents", { body: { to: alice.agentId, intent: "ask", payload: { question: "Agenda?" } } }));
  await bob.drainOutbox();
  expect((await json(await asOwner(bob, `/api/svc/intents/${meeting.id}`))).delivery.state).toBe("delivered");
  expect(held().map((i) => new TextDecoder().decode(i.body)).join("")).not.toContain("Kickoff");
  expect(await drain()).toMatchObject({ ok: true, received: 2, duplicates: 0, refused: 0, acknowledged: 2 });
  const inbox = (await json(await asOwner(alice, "/api/svc/inbox"))).items as Array<{ id: string; intent: string; sealed: boolean }>;
  expect(inbox.find((m) => m.id === meeting.id)).toMatchObject({ intent: "schedule_meeting", sealed: true });
  expect((await asOwner(alice, `/api/svc/inbox/${ask.id}/respond`, { body: { payload: { answer: "Attached" } } })).status).toBe(202);
  await alice.drainOutbox();
  const answer = (await json(await asOwner(bob, "/api/svc/inbox/search?intent=ask_response"))).items[0];
  expect(answer).toMatchObject({ correlationId: ask.correlationId, inReplyTo: ask.id, payload: { answer: "Attached" } });
});

test("exactly once: an item whose ack was lost is drained again and acknowledged, never stored twice (by nonce, then past its retention by message id)", async () => {
  await connect();
  await asOwner(bob, "/api/svc/intents", { body: { to: alice.agentId, intent: "ping", payload: { note: "once" } } });
  await bob.drainOutbox();
  const copy = held()[0]!;
  expect(await drain()).toMatchObject({ received: 1, acknowledged: 1 });
  const count = () => inbound(alice).filter((m) => m.intent === "ping").length;
  expect(count()).toBe(1);
  carol.db.insert(mailboxItems).values(copy).run(); // the ack never reached the mailbox
  expect(await drain()).toMatchObject({ received: 0, duplicates: 1, acknowledged: 1 });
  alice.clock.advance(60 * 60_000); // the nonce is pruned after 15 minutes; the message id stays
  expect(pruneNonces(alice.ctx())).toBeGreaterThan(0);
  carol.db.insert(mailboxItems).values(copy).run();
  expect(await drain()).toMatchObject({ received: 0, duplicates: 1 });
  expect(count()).toBe(1);
});

test("a message held for hours is fresh at the time the mailbox accepted it; one the mailbox altered or forged is refused and dropped", async () => {
  await connect();
  await asOwner(bob, "/api/svc/intents", { body: { to: alice.agentId, intent: "ping", payload: { note: "late" } } });
  await asOwner(bob, "/api/svc/intents", { body: { to: alice.agentId, intent: "ping", payload: { note: "genuine" } } });
  await bob.drainOutbox();
  const [first, second] = held();
  carol.db.update(mailboxItems).set({ body: Buffer.from(new TextDecoder().decode(second!.body).replace("genuine", "forged!")) }).where(eq(mailboxItems.id, second!.id)).run();
  // A request the mailbox made up, signed by nobody the home knows.
  const made = signedIntent("carol", { ...alice, publicUrl: `${carol.url}/mailbox` } as TestNode, { intent: "ping", payload: {} });
  carol.db.insert(mailboxItems).values({ ...first!, id: "mbi_zz", body: Buffer.from(made.body), authorization: made.authorization }).run();
  alice.clock.advance(3 * 3_600_000);
  expect(await drain()).toMatchObject({ ok: true, received: 1, refused: 2, acknowledged: 3 });
  expect(inbound(alice).filter((m) => m.intent === "ping").map((m) => JSON.parse(m.payloadJson).note)).toEqual(["late"]);
  expect(held()).toEqual([]);
});

test("drain, ack and card requests must be the home agent's own, signed, fresh and unreplayed", async () => {
  const path = (action: string) => `/mailbox/ink/v1/${encodeURIComponent(alice.agentId!)}/${action}`;
  const unsigned = await carol.request(path("drain"), { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ protocol: "ink/0.1", type: "network.ink.mailbox_drain", from: alice.agentId, to: alice.agentId, nonce: "n".repeat(20), timestamp: new Date(carol.clock.now()).toISOString() }) });
  expect({ status: unsigned.status, code: (await json(unsigned)).code }).toEqual({ status: 401, code: "missing_authorization" });
  // Bob signs a drain of Alice's mailbox (the body names him): not hers.
  const { formatTimestamp, signTransport } = await import("../../src/ink/index.ts");
  const { personaKey } = await import("../helpers/personas.ts");
  const key = personaKey("bob", "signing");
  const body = { protocol: "ink/0.1", type: "network.ink.mailbox_drain", from: bob.agentId, to: alice.agentId, nonce: "bobnonce-123456789", timestamp: formatTimestamp(carol.clock.now()) };
  const signed = signTransport({ method: "POST", path: path("drain"), recipientDid: alice.agentId!, body, timestamp: body.timestamp }, key.privateKey, key.keyId);
  if (!signed.ok) throw new Error(signed.reason);
  const foreign = await carol.request(path("drain"), { method: "POST", headers: { "content-type": "application/json", authorization: signed.authorization }, body: JSON.stringify(body) });
  expect({ status: foreign.status, code: (await json(foreign)).code }).toEqual({ status: 403, code: "not_mailbox_agent" });
  // Alice's own drain, sent twice: the second is a replay.
  const mine = { ...body, from: alice.agentId, nonce: "alicenonce-123456789" };
  const aliceKey = personaKey("alice", "signing");
  const hers = signTransport({ method: "POST", path: path("drain"), recipientDid: alice.agentId!, body: mine, timestamp: mine.timestamp }, aliceKey.privateKey, aliceKey.keyId);
  if (!hers.ok) throw new Error(hers.reason);
  const send = () => carol.request(path("drain"), { method: "POST", headers: { "content-type": "application/json", authorization: hers.authorization }, body: JSON.stringify(mine) });
  expect((await send()).status).toBe(200);
  const replay = await send();
  expect({ status: replay.status, code: (await json(replay)).code }).toEqual({ status: 409, code: "nonce_replay" });
  // No mailbox for Bob.
  const none = await carol.request(`/mailbox/ink/v1/${encodeURIComponent(bob.agentId!)}/drain`, { method: "POST", headers: { "content-type": "application/json", authorization: signed.authorization }, body: JSON.stringify(body) });
  expect(none.status).toBe(404);
  // Revoked: the home's drain is refused and its card is gone.
  await publishCardToMailbox(alice.ctx());
  await asOwner(carol, `/api/svc/mailboxes/${encodeURIComponent(alice.agentId!)}/revoke`, { method: "POST" });
  expect(await drain()).toMatchObject({ ok: false });
  expect((await carol.request(path("agent.json"))).status).toBe(404);
});

test("the mailbox serves only a card peers would accept from the home: signed, rooted in its id, for it, pointing here, not rolled back; a private card is withdrawn", async () => {
  const { homeRequest } = await import("../../src/domain/mailbox/internal/home-request.ts");
  const { getPublicAgentCard } = await import("../../src/domain/agent-card/get-public-agent-card.ts");
  const card = getPublicAgentCard(alice.ctx(), null);
  const publish = async (value: unknown) => {
    const res = await homeRequest(alice.ctx(), "mailbox_card", { card: value }, { timeoutMs: 5_000 });
    if (!res.ok) throw new Error(res.reason);
    return { status: res.status, body: JSON.parse(new TextDecoder().decode(res.body)) };
  };
  const { cardSignature: _proof, ...unsigned } = card;
  const refusals = [
    unsigned, // INK §13: a mailbox never serves an unsigned card
    { ...card, endpoint: `${bob.url}/ink/v1/${alice.agentId}/intent` }, // not this mailbox (and the proof breaks)
    { ...card, displayName: "Mallory" }, // altered after signing
    getPublicAgentCard(bob.ctx(), null), // another agent's card
    { protocol: "ink/0.1" },
    "card",
  ];
  for (const value of refusals) expect(await publish(value)).toMatchObject({ status: 400, body: { code: "invalid_card" } });
  expect((await carol.request(`/mailbox/ink/v1/${encodeURIComponent(alice.agentId!)}/agent.json`)).status).toBe(404);
  expect(await publish(card)).toMatchObject({ status: 200, body: { keySetVersion: card.keySetVersion } });

  // A rotated key set is published (the request verifies under the new card's keys); the old card cannot come back.
  const { rotateSigningKey } = await import("../../src/domain/identity/rotate-signing-key.ts");
  rotateSigningKey(alice.ctx());
  const rotated = getPublicAgentCard(alice.ctx(), null);
  expect(rotated.keySetVersion).toBe(card.keySetVersion + 1);
  expect(await publishCardToMailbox(alice.ctx())).toEqual({ ok: true, published: true });
  expect(await publish(card)).toMatchObject({ status: 400, body: { code: "invalid_card" } });
  expect((await json(await carol.request(`/mailbox/ink/v1/${encodeURIComponent(alice.agentId!)}/agent.json`))).keySetVersion).toBe(rotated.keySetVersion);

  // Private: the card is withdrawn from the mailbox too.
  expect((await asOwner(alice, "/api/svc/visibility", { method: "PUT", body: { visibility: "private" } })).status).toBe(200);
  expect(await publishCardToMailbox(alice.ctx())).toEqual({ ok: true, published: true });
  expect((await carol.request(`/mailbox/ink/v1/${encodeURIComponent(alice.agentId!)}/agent.json`)).status).toBe(404);
});

test("what a mailbox kept past its retention is deleted by the maintenance pass, also in a mailbox nobody touches", async () => {
  const { pruneMailboxes } = await import("../../src/domain/mailbox/prune-mailboxes.ts");
  await publishCardToMailbox(alice.ctx());
  await asOwner(bob, "/api/svc/connections", { body: { cardUrl: alice.cardUrl, context: "hi" } });
  await bob.drainOutbox();
  expect(held()).toHaveLength(1);
  expect(pruneMailboxes(carol.ctx())).toBe(0);
  carol.clock.advance(7 * 24 * 3_600_000 + 1);
  expect(pruneMailboxes(carol.ctx())).toBe(1);
  expect(held()).toEqual([]);
});

test("a drain held open by the mailbox ends when the node stops: the long-poll is cancelled, nothing is taken or recorded", async () => {
  const stopping = new AbortController();
  const round = drainMailbox(alice.ctx({ kind: "system", job: "mailbox" }), { waitMs: 20_000, signal: stopping.signal });
  await Bun.sleep(300); // the mailbox now holds the drain: nothing waits for Alice
  stopping.abort();
  expect(await round).toEqual({ ok: false, error: "stopped" }); // before the fix: the full 20 s (the test times out)
  expect((await json(await asOwner(alice, "/api/svc/mailbox"))).lastError ?? null).toBeNull();
});
