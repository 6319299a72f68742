import { afterEach, describe, expect, test } from "bun:test";
import { decidePending } from "../../src/domain/approvals/decide-pending.ts";
import { listPending } from "../../src/domain/approvals/list-pending.ts";
import { addConnection } from "../../src/domain/connections/add-connection.ts";
import { listConnections } from "../../src/domain/connections/list-connections.ts";
import { listConversations } from "../../src/domain/conversations/list-conversations.ts";
import { getConversation } from "../../src/domain/conversations/get-conversation.ts";
import { listInbox } from "../../src/domain/inbox/list-inbox.ts";
import { respondToMessage } from "../../src/domain/inbox/respond-to-message.ts";
import { sendIntent } from "../../src/domain/outbox/send-intent.ts";
import { bootNetworkNode, type TestNode } from "../helpers/boot.ts";
import { testClock } from "../helpers/clock.ts";

type Net = TestNode & { url: string; stop(): Promise<void> };
let nodes: Net[] = [];
afterEach(async () => {
  await Promise.all(nodes.map((n) => n.stop()));
  nodes = [];
});

async function pair() {
  const clock = testClock();
  const alice = await bootNetworkNode({ name: "alice", clock });
  const bob = await bootNetworkNode({ name: "bob", clock });
  nodes = [alice, bob];
  return { alice, bob, clock };
}
const owner = { kind: "owner", subject: "owner" } as const;

describe("federation between two nodes (real TLS on loopback, in-process)", () => {
  test("connect, accept, then exchange a sealed schedule_meeting and an ask with its answer", async () => {
    const { alice, bob } = await pair();
    // Alice connects to Bob by his card URL.
    const added = await addConnection(alice.ctx(owner), { cardUrl: bob.cardUrl!, context: "We met at the conference" });
    expect(added.connection).toMatchObject({ status: "requested", agentId: bob.agentId, handle: "bob" });
    expect(await alice.drainOutbox()).toBe(1);

    // Bob's node holds the stranger's request for his owner (autonomy default draft_only).
    const pendingAtBob = listPending(bob.ctx(owner), {});
    expect(pendingAtBob.items).toHaveLength(1);
    expect(pendingAtBob.items[0]).toMatchObject({ kind: "connection_request", status: "pending", message: { intent: "connection_request", from: alice.agentId } });
    expect(listConnections(bob.ctx(owner), {}).items[0]).toMatchObject({ status: "pending", agentId: alice.agentId, initiatedBy: "them", cardUrl: alice.cardUrl });

    // Bob approves: a connection_response goes back, both sides are connected.
    decidePending(bob.ctx(owner), pendingAtBob.items[0]!.id, { decision: "approve" });
    expect(await bob.drainOutbox()).toBe(1);
    expect(listConnections(alice.ctx(owner), {}).items[0]).toMatchObject({ status: "connected" });
    expect(listConnections(bob.ctx(owner), {}).items[0]).toMatchObject({ status: "connected" });

    // Alice sends a confidential intent (sealed on the wire) and an ask.
    const meeting = await sendIntent(alice.ctx(owner), { to: bob.agentId!, intent: "schedule_meeting", payload: { proposedTimes: ["2026-06-10T10:00:00Z"], topic: "Roadmap", format: "video", urgency: "normal" } });
    const ask = await sendIntent(alice.ctx(owner), { to: bob.agentId!, intent: "ask", payload: { question: "Coffee next week?" } });
    expect(await alice.drainOutbox()).toBe(2);
    const bobInbox = listInbox(bob.ctx(owner), {}).items;
    const received = bobInbox.find((m) => m.id === meeting.id)!;
    expect(received).toMatchObject({ intent: "schedule_meeting", from: alice.agentId, sealed: true, status: "pending", payload: { topic: "Roadmap" } });
    expect(bobInbox.find((m) => m.id === ask.id)).toMatchObject({ intent: "ask", sealed: false, payload: { question: "Coffee next week?" } });

    // Bob answers the ask; Alice sees the answer in the same thread, linked to her ask.
    const answer = await respondToMessage(bob.ctx(owner), ask.id, { payload: { answer: "Yes, Tuesday" } });
    expect(await bob.drainOutbox()).toBe(1);
    const aliceInbox = listInbox(alice.ctx(owner), { intent: "ask_response" }).items;
    expect(aliceInbox).toHaveLength(1);
    expect(aliceInbox[0]).toMatchObject({ id: answer.id, correlationId: ask.correlationId, status: "unread", payload: { answer: "Yes, Tuesday" } });
    const thread = getConversation(alice.ctx(owner), ask.conversationId);
    expect(thread.messages.map((m) => `${m.direction}:${m.intent}`)).toEqual(["outbound:ask", "inbound:ask_response"]);
    expect(thread.messages[0]!.delivery).toMatchObject({ state: "delivered", attempts: 1 });
    expect(thread.messages[0]!.respondedAt).not.toBeNull();
    expect(thread.messages[1]!.inReplyTo).toBe(ask.id);
    expect(listConversations(bob.ctx(owner), {}).items.length).toBe(3);
  });

  test("an undeliverable message is retried with backoff and delivered once the peer is back", async () => {
    const { alice, bob, clock } = await pair();
    await addConnection(alice.ctx(owner), { cardUrl: bob.cardUrl! });
    await alice.drainOutbox();
    // Bob's node goes away for a while: Alice's delivery fails and is rescheduled.
    const bobUrl = bob.url;
    const lost = await sendIntent(alice.ctx(owner), { to: bob.agentId!, intent: "ping", payload: { note: "are you there" } });
    await bob.stop();
    nodes = [alice];
    await alice.drainOutbox();
    const thread = getConversation(alice.ctx(owner), lost.conversationId);
    expect(thread.messages[0]!.delivery).toMatchObject({ state: "queued", attempts: 1 });
    expect(thread.messages[0]!.delivery!.lastError).toContain("network_error");
    expect(Date.parse(thread.messages[0]!.delivery!.nextAttemptAt!)).toBeGreaterThan(clock.now());
    expect(bobUrl).toBeDefined();
  });
});
