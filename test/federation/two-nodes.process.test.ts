import { afterAll, expect, setDefaultTimeout, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { api, initProcessNode, signIn, startProcessNode, waitFor, type ProcessNode } from "../helpers/network-process.ts";

// Spawns kith processes (or compiles the binary): a longer per-test timeout than the suite's 5 s.
setDefaultTimeout(60_000);

/**
 * Two real `kith serve` processes on loopback over TLS (KITH_ALLOW_PRIVATE_PEERS=1), driven only
 * through their owner APIs: connect, accept, a sealed schedule_meeting and an ask with its
 * answer; then the receiver goes down, three intents are sent, it comes back, and each arrives
 * exactly once.
 */
const work = mkdtempSync(join(tmpdir(), "kith-2p-"));
const nodes: ProcessNode[] = [];
afterAll(async () => {
  await Promise.all(nodes.map((n) => n.running?.stop("SIGKILL")));
  rmSync(work, { recursive: true, force: true });
});

test("two node processes: connect, accept, sealed meeting + ask/answer, then store-and-forward across a restart, exactly once", async () => {
  const a = await initProcessNode(work, "alice");
  const b = await initProcessNode(work, "bob");
  nodes.push(a, b);
  await Promise.all([startProcessNode(a), startProcessNode(b)]);
  await Promise.all([signIn(a), signIn(b)]);

  // A's owner connects to B by his card URL; B's owner accepts the pending request.
  const added = await api(a, "/connections", { cardUrl: b.cardUrl, context: "Met at the meetup" });
  expect(added.status).toBe(202);
  const pending = await waitFor("B's pending connection request", async () => (await api(b, "/pending")).body.items[0]);
  expect(pending).toMatchObject({ kind: "connection_request", message: { from: a.agentId } });
  expect((await api(b, `/pending/${pending.id}`, { decision: "approve" })).status).toBe(200);
  await waitFor("A sees the connection accepted", async () => (await api(a, "/connections?status=connected")).body.items[0]);

  // A sends a confidential schedule_meeting (sealed on the wire) and an ask.
  const meeting = await api(a, "/intents", { to: b.agentId, intent: "schedule_meeting", payload: { proposedTimes: ["2026-12-01T10:00:00Z", "2026-12-02T15:00:00Z"], topic: "Kickoff", format: "video", urgency: "normal" } });
  const ask = await api(a, "/intents", { to: b.agentId, intent: "ask", payload: { question: "Can you share the agenda?" } });
  expect([meeting.status, ask.status]).toEqual([202, 202]);
  const bInbox = await waitFor("both intents at B", async () => {
    const items = (await api(b, "/inbox")).body.items as Array<{ id: string; intent: string; sealed: boolean }>;
    return items.some((m) => m.id === meeting.body.id) && items.some((m) => m.id === ask.body.id) ? items : undefined;
  });
  expect(bInbox.find((m) => m.id === meeting.body.id)).toMatchObject({ intent: "schedule_meeting", sealed: true });
  // B stores before A hears B's answer: A's delivery settles a moment after B's inbox shows it.
  await waitFor("A settles the meeting's delivery", async () => ((await api(a, `/intents/${meeting.body.id}`)).body.delivery.state === "delivered" ? true : undefined));

  // B answers the ask; both sides see the thread.
  expect((await api(b, `/inbox/${ask.body.id}/respond`, { payload: { answer: "Agenda attached" } })).status).toBe(202);
  const answer = await waitFor("A receives the answer", async () => (await api(a, "/inbox/search?intent=ask_response")).body.items[0]);
  expect(answer).toMatchObject({ correlationId: ask.body.correlationId, inReplyTo: ask.body.id, payload: { answer: "Agenda attached" } });
  const aThread = (await api(a, `/conversations/${ask.body.conversationId}`)).body;
  expect(aThread.messages.map((m: { direction: string; intent: string }) => `${m.direction}:${m.intent}`)).toEqual(["outbound:ask", "inbound:ask_response"]);
  const bThreads = (await api(b, "/conversations")).body.items as Array<{ id: string; correlationId: string }>;
  const bThread = (await api(b, `/conversations/${bThreads.find((t) => t.correlationId === ask.body.correlationId)!.id}`)).body;
  expect(bThread.messages.map((m: { direction: string; intent: string }) => `${m.direction}:${m.intent}`)).toEqual(["inbound:ask", "outbound:ask_response"]);

  // B goes down. A sends three intents; they wait in A's outbox with their delivery state.
  expect(await b.running!.stop("SIGTERM")).toBe(0);
  const sent: Array<{ id: string }> = [];
  for (const note of ["one", "two", "three"]) sent.push((await api(a, "/intents", { to: b.agentId, intent: "ping", payload: { note } })).body);
  const waiting = await waitFor("a failed first attempt", async () => {
    const d = (await api(a, `/intents/${sent[0]!.id}`)).body.delivery;
    return d.attempts >= 1 ? d : undefined;
  });
  expect(waiting).toMatchObject({ state: "queued" });
  expect(waiting.lastError).toMatch(/network_error|timeout/);

  // B comes back: all three arrive, each exactly once, in order.
  await startProcessNode(b);
  await waitFor("all three at B", async () => ((await api(b, "/inbox?intent=ping")).body.items.length === 3 ? true : undefined), 30_000);
  const pings = (await api(b, "/inbox?intent=ping")).body.items as Array<{ id: string; payload: { note: string } }>;
  expect(pings.map((m) => m.id).sort()).toEqual(sent.map((s) => s.id).sort());
  expect(pings.map((m) => m.payload.note).reverse()).toEqual(["one", "two", "three"]);
  for (const s of sent) await waitFor(`A settles ${s.id}`, async () => ((await api(a, `/intents/${s.id}`)).body.delivery.state === "delivered" ? true : undefined));
}, 90_000);
