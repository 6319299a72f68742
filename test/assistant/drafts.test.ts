import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { bootNetworkNode, type TestNode } from "../helpers/boot.ts";
import { testClock } from "../helpers/clock.ts";
import { startFakeOpenAi, type FakeOpenAi } from "../helpers/fake-openai.ts";
import { asOwner } from "../helpers/owner.ts";
import { json } from "../helpers/process.ts";

type Net = TestNode & { url: string; stop(): Promise<void> };
let llm: FakeOpenAi;
let alice: Net; // drafts with the fake LLM
let bob: Net; // no LLM: the built-in
beforeEach(async () => {
  llm = startFakeOpenAi();
  const clock = testClock();
  alice = await bootNetworkNode({ name: "alice", clock, assistant: { llm: { url: llm.url, model: "fake-model", apiKey: "sk-test" } } });
  bob = await bootNetworkNode({ name: "bob", clock });
  await asOwner(bob, "/api/svc/connections", { body: { cardUrl: alice.cardUrl, context: "hello" } });
  await bob.drainOutbox();
  const pending = await json(await asOwner(alice, "/api/svc/pending"));
  await asOwner(alice, `/api/svc/pending/${pending.items[0].id}`, { body: { decision: "approve" } });
  await alice.drainOutbox();
});
afterEach(async () => {
  await alice.stop();
  await bob.stop();
  await llm.stop();
});

async function send(from: Net, to: Net, intent: string, payload: Record<string, unknown>): Promise<{ id: string; conversationId: string }> {
  const res = await asOwner(from, "/api/svc/intents", { body: { to: to.agentId, intent, payload } });
  expect(res.status).toBe(202);
  await from.drainOutbox();
  return json(res);
}

describe("drafts", () => {
  test("with an LLM: the model's payload, validated against INK, that /respond then sends", async () => {
    const { id } = await send(bob, alice, "ask", { question: "Can you review my PR on Friday?" });
    llm.reply = '```json\n{"payload": {"answer": "Yes, Friday afternoon works."}, "note": "Check your Friday calendar."}\n```';
    const res = await asOwner(alice, `/api/svc/inbox/${id}/draft`, { method: "POST" });
    expect(res.status).toBe(200);
    expect(await json(res)).toEqual({ messageId: id, draft: { intent: "ask_response", payload: { answer: "Yes, Friday afternoon works." }, note: "Check your Friday calendar." }, backend: "llm", model: "fake-model" });
    const call = llm.requests[0]!;
    expect(call.headers.authorization).toBe("Bearer sk-test");
    expect(call.json).toMatchObject({ model: "fake-model" });
    expect(JSON.stringify(call.json!.messages)).toContain("Can you review my PR on Friday?");
    const sent = await asOwner(alice, `/api/svc/inbox/${id}/respond`, { body: { payload: { answer: "Yes, Friday afternoon works." } } });
    expect(sent.status).toBe(202);
    expect(await alice.drainOutbox()).toBe(1);
    expect((await json(await asOwner(bob, "/api/svc/inbox?intent=ask_response"))).items[0].payload).toEqual({ answer: "Yes, Friday afternoon works." });
  });

  test("an unusable or failing LLM falls back to the built-in template and says why", async () => {
    const { id } = await send(bob, alice, "ask", { question: "Coffee?", responseFormat: "choice", choices: ["yes", "no"] });
    const cases: Array<[FakeOpenAi["reply"], RegExp]> = [
      ['{"payload": {"answer": 42}}', /not a valid ask_response payload/],
      ['{"payload": {"answer": "ok", "mood": "great"}}', /not a valid ask_response payload/],
      ["Sure, sounds good!", /not the expected JSON object/],
      [() => new Response("boom", { status: 500 }), /LLM backend failed: .*answered 500/],
      [() => new Response(null, { status: 302, headers: { location: "http://169.254.169.254/" } }), /redirect/],
      [() => Response.json({ choices: [] }), /no message content/],
    ];
    for (const [reply, reason] of cases) {
      llm.reply = reply;
      const out = await json(await asOwner(alice, `/api/svc/inbox/${id}/draft`, { method: "POST" }));
      expect(out).toMatchObject({ backend: "builtin", draft: { intent: "ask_response", payload: { answer: expect.any(String), choiceIndex: 0 } } });
      expect(out.fallbackReason).toMatch(reason);
      expect(out.model).toBeUndefined();
    }
    await llm.stop();
    const down = await json(await asOwner(alice, `/api/svc/inbox/${id}/draft`, { method: "POST" }));
    expect(down).toMatchObject({ backend: "builtin" });
    expect(down.fallbackReason).toMatch(/the LLM backend failed: 127\.0\.0\.1/);
  });

  test("without an LLM: deterministic per-intent templates, each a valid INK payload", async () => {
    const ask = await send(alice, bob, "ask", { question: "Lunch?" });
    const meet = await send(alice, bob, "intro_request", { target: "svc:z6MkpTHR8VNsBxYAAWHut2Geadd9jSwuBV8xRoAnwWsdvktH", reason: "you both like SQLite", urgency: "low" });
    const opp = await send(alice, bob, "opportunity", { type: "collaboration", title: "Kith", description: "Build it", matchReason: "You know INK" });
    const a = await json(await asOwner(bob, `/api/svc/inbox/${ask.id}/draft`, { method: "POST" }));
    expect(a).toEqual({ messageId: ask.id, backend: "builtin", draft: { intent: "ask_response", payload: { answer: "Thanks for asking, Alice. Let me get back to you on this shortly." }, note: expect.stringContaining("Template") } });
    expect((await json(await asOwner(bob, `/api/svc/inbox/${meet.id}/draft`, { method: "POST" }))).draft).toMatchObject({ intent: "intro_response", payload: { status: "pending_target" } });
    const o = await json(await asOwner(bob, `/api/svc/inbox/${opp.id}/draft`, { method: "POST" }));
    expect(o.draft).toMatchObject({ intent: "opportunity_response", payload: { status: "maybe_later" } });
    expect((await asOwner(bob, `/api/svc/inbox/${opp.id}/respond`, { body: { payload: o.draft.payload } })).status).toBe(202);
  });

  test("rejections: no response intent (400), a response (400), unknown message (404), no token (401)", async () => {
    const ping = await send(bob, alice, "ping", { note: "hi" });
    const noResponse = await asOwner(alice, `/api/svc/inbox/${ping.id}/draft`, { method: "POST" });
    expect(noResponse.status).toBe(400);
    expect((await json(noResponse)).message).toMatch(/a ping has no response intent/);
    const ask = await send(alice, bob, "ask", { question: "?" });
    await asOwner(bob, `/api/svc/inbox/${ask.id}/respond`, { body: { payload: { answer: "!" } } });
    await bob.drainOutbox();
    const answer = (await json(await asOwner(alice, "/api/svc/inbox?intent=ask_response"))).items[0];
    expect((await asOwner(alice, `/api/svc/inbox/${answer.id}/draft`, { method: "POST" })).status).toBe(400);
    expect((await asOwner(alice, "/api/svc/inbox/nope/draft", { method: "POST" })).status).toBe(404);
    expect((await alice.request(`/api/svc/inbox/${ping.id}/draft`, { method: "POST" })).status).toBe(401);
    expect((await alice.request("/api/svc/conversations/x/summarize", { method: "POST" })).status).toBe(401);
    expect(llm.requests).toHaveLength(0);
  });
});

describe("summaries", () => {
  test("with an LLM the model's text; without one (or when it fails) the extractive built-in", async () => {
    const ask = await send(bob, alice, "ask", { question: "Shall we ship on Monday?" });
    await asOwner(alice, `/api/svc/inbox/${ask.id}/respond`, { body: { payload: { answer: "Tuesday is safer." } } });
    await alice.drainOutbox();
    await send(bob, alice, "follow_up", { referenceId: ask.id, message: "Tuesday it is, then." }); // another thread

    llm.reply = "Bob asked to ship on Monday; Alice proposed Tuesday.";
    const threadId = (await json(await asOwner(alice, "/api/svc/conversations"))).items.find((c: { subject: string }) => c.subject?.includes("Monday")).id;
    const viaLlm = await json(await asOwner(alice, `/api/svc/conversations/${threadId}/summarize`, { method: "POST" }));
    expect(viaLlm).toEqual({ conversationId: threadId, messageCount: 2, summary: "Bob asked to ship on Monday; Alice proposed Tuesday.", backend: "llm", model: "fake-model" });
    expect(JSON.stringify(llm.requests.at(-1)!.json!.messages)).toContain("Tuesday is safer.");

    llm.reply = () => new Response("overloaded", { status: 503 });
    const fallback = await json(await asOwner(alice, `/api/svc/conversations/${threadId}/summarize`, { method: "POST" }));
    expect(fallback.backend).toBe("builtin");
    expect(fallback.fallbackReason).toMatch(/answered 503/);
    expect(fallback.summary).toContain('Bob Example → you: ask: "Shall we ship on Monday?"');
    expect(fallback.summary).toContain('you → Bob Example: ask response: "Tuesday is safer."');

    const bobThread = (await json(await asOwner(bob, "/api/svc/conversations"))).items.find((c: { subject: string }) => c.subject?.includes("Monday")).id;
    const builtin = await json(await asOwner(bob, `/api/svc/conversations/${bobThread}/summarize`, { method: "POST" }));
    expect(builtin).toMatchObject({ backend: "builtin", messageCount: 2 });
    expect(builtin.fallbackReason).toBeUndefined();
    expect(builtin.summary.split("\n")[0]).toBe("Thread with Alice Example: 2 messages, 2026-06-01 to 2026-06-01.");
    expect((await asOwner(alice, "/api/svc/conversations/cnv_nope/summarize", { method: "POST" })).status).toBe(404);
  });
});
