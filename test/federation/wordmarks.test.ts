import { afterEach, expect, test } from "bun:test";
import { bootNetworkNode, type TestNode } from "../helpers/boot.ts";
import { testClock } from "../helpers/clock.ts";
import { asOwner } from "../helpers/owner.ts";
import { json } from "../helpers/process.ts";

type Net = TestNode & { url: string; stop(): Promise<void> };
let nodes: Net[] = [];
afterEach(async () => {
  await Promise.all(nodes.map((n) => n.stop()));
  nodes = [];
});

/** Connect a → b, exchange a sealed schedule_meeting and an ask/answer; returns what b received. */
async function exchange(a: Net, b: Net) {
  expect((await asOwner(a, "/api/svc/connections", { body: { cardUrl: b.cardUrl } })).status).toBe(202);
  await a.drainOutbox();
  const pending = (await json(await asOwner(b, "/api/svc/pending"))).items[0];
  expect((await asOwner(b, `/api/svc/pending/${pending.id}`, { body: { decision: "approve" } })).status).toBe(200);
  await b.drainOutbox();
  const meeting = await json(await asOwner(a, "/api/svc/intents", { body: { to: b.agentId, intent: "schedule_meeting", payload: { proposedTimes: ["2026-09-01T09:00:00Z"], topic: "Sync", format: "phone", urgency: "low" } } }));
  const ask = await json(await asOwner(a, "/api/svc/intents", { body: { to: b.agentId, intent: "ask", payload: { question: "ok?" } } }));
  await a.drainOutbox();
  expect((await json(await asOwner(a, `/api/svc/intents/${meeting.id}`))).delivery.state).toBe("delivered");
  expect((await asOwner(b, `/api/svc/inbox/${ask.id}/respond`, { body: { payload: { answer: "yes" } } })).status).toBe(202);
  await b.drainOutbox();
  const answer = (await json(await asOwner(a, "/api/svc/inbox/search?intent=ask_response"))).items[0];
  const received = (await json(await asOwner(b, "/api/svc/inbox"))).items;
  return { received, answer, meeting, ask };
}

test("tulpa ↔ tulpa: agent ids, body signatures and sealed types in the tulpa spelling", async () => {
  const clock = testClock();
  const a = await bootNetworkNode({ name: "alice", clock, wordmark: "tulpa" });
  const b = await bootNetworkNode({ name: "bob", clock, wordmark: "tulpa" });
  nodes = [a, b];
  expect(a.agentId).toStartWith("tulpa:z6Mk");
  const { received, answer, meeting } = await exchange(a, b);
  expect(received.find((m: { id: string }) => m.id === meeting.id)).toMatchObject({ sealed: true, intent: "schedule_meeting", from: a.agentId });
  expect(answer.payload).toEqual({ answer: "yes" });
  const sent = b.db.$client.query("SELECT envelope_json FROM messages WHERE intent = 'schedule_meeting'").get() as { envelope_json: string };
  expect(JSON.parse(sent.envelope_json).from).toStartWith("tulpa:");
});

test("svc ↔ tulpa interoperate: ink/0.2 body signatures and the neutral sealed type", async () => {
  const clock = testClock();
  const a = await bootNetworkNode({ name: "alice", clock, wordmark: "svc" });
  const b = await bootNetworkNode({ name: "bob", clock, wordmark: "tulpa" });
  nodes = [a, b];
  const { received, answer, meeting, ask } = await exchange(a, b);
  expect(received.find((m: { id: string }) => m.id === meeting.id)).toMatchObject({ sealed: true, protocol: "ink/0.2" });
  expect(received.find((m: { id: string }) => m.id === ask.id)).toMatchObject({ protocol: "ink/0.2" });
  expect(answer).toMatchObject({ protocol: "ink/0.2", payload: { answer: "yes" } });
});
