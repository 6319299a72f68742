import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { bootNetworkNode, type TestNode } from "../helpers/boot.ts";
import { runAssistantJob } from "../helpers/assistant.ts";
import { testClock } from "../helpers/clock.ts";
import { asOwner } from "../helpers/owner.ts";
import { json } from "../helpers/process.ts";

type Net = TestNode & { url: string; stop(): Promise<void> };
let alice: Net;
let bob: Net;
beforeEach(async () => {
  const clock = testClock();
  alice = await bootNetworkNode({ name: "alice", clock });
  bob = await bootNetworkNode({ name: "bob", clock });
  // Bob asks to connect; Alice (draft_only by default) approves the pending request.
  expect((await asOwner(bob, "/api/svc/connections", { body: { cardUrl: alice.cardUrl, context: "hello" } })).status).toBe(202);
  await bob.drainOutbox();
  const pending = await json(await asOwner(alice, "/api/svc/pending"));
  expect((await asOwner(alice, `/api/svc/pending/${pending.items[0].id}`, { body: { decision: "approve" } })).status).toBe(200);
  await alice.drainOutbox();
  runAssistantJob(alice);
});
afterEach(async () => {
  await alice.stop();
  await bob.stop();
});

const ASK_RULE = {
  name: "Answer lunch questions",
  match: { intents: ["ask"], payload: [{ path: "question", op: "contains", value: "lunch" }] },
  action: { type: "auto_respond", template: { answer: "Hi {{sender.displayName}}, {{owner.displayName}} here: yes to \"{{payload.question}}\"" } },
};

/** Bob asks Alice a question through his owner API; the envelope reaches Alice's node. */
async function bobAsks(question: string): Promise<string> {
  const sent = await asOwner(bob, "/api/svc/intents", { body: { to: alice.agentId, intent: "ask", payload: { question } } });
  expect(sent.status).toBe(202);
  await bob.drainOutbox();
  return (await json(sent)).id;
}

async function bobsAnswers(): Promise<Array<{ payload: { answer: string }; inReplyTo: string }>> {
  return (await json(await asOwner(bob, "/api/svc/inbox/search?intent=ask_response"))).items;
}

describe("automation rules under the autonomy policy, end to end between two nodes", () => {
  test("at full, an inbound ask triggers the rule and the reply is delivered to the sender", async () => {
    const policy = await asOwner(alice, "/api/svc/policy", { method: "PUT", body: { maxAutonomyLevel: "full" } });
    expect(await json(policy)).toMatchObject({ maxAutonomyLevel: "full" });
    const rule = await json(await asOwner(alice, "/api/svc/rules", { body: ASK_RULE }));

    const askId = await bobAsks("Lunch on Friday?");
    const held = await json(await asOwner(alice, `/api/svc/inbox/${askId}`));
    expect(held.status).toBe("read"); // at full nothing is held; the owner opened it

    expect(runAssistantJob(alice).messages).toBe(1);
    expect(await alice.drainOutbox()).toBe(1);
    const answers = await bobsAnswers();
    expect(answers).toHaveLength(1);
    expect(answers[0]).toMatchObject({ inReplyTo: askId, payload: { answer: 'Hi Bob Example, Alice Example here: yes to "Lunch on Friday?"' } });

    expect((await json(await asOwner(alice, `/api/svc/inbox/${askId}`))).status).toBe("responded");
    const runs = await json(await asOwner(alice, `/api/svc/rules/${rule.id}/runs`));
    expect(runs.items).toHaveLength(1);
    expect(runs.items[0]).toMatchObject({ ruleId: rule.id, action: "auto_respond", outcome: "sent", message: { id: askId }, detail: { intent: "ask_response" } });
    // Run again: the cursor moved, nothing is answered twice.
    expect(runAssistantJob(alice).messages).toBe(0);
    expect(await alice.drainOutbox()).toBe(0);
  });

  test("below full (draft_only, the default) the reply waits as a pending action with the draft; approving delivers it", async () => {
    const rule = await json(await asOwner(alice, "/api/svc/rules", { body: ASK_RULE }));
    const askId = await bobAsks("lunch tomorrow?");
    runAssistantJob(alice);
    expect(await alice.drainOutbox()).toBe(0);
    expect(await bobsAnswers()).toHaveLength(0);

    const message = await json(await asOwner(alice, `/api/svc/inbox/${askId}`));
    expect(message.status).toBe("pending");
    const action = await json(await asOwner(alice, `/api/svc/pending/${message.pendingActionId}`));
    expect(action).toMatchObject({
      kind: "inbound_intent",
      status: "pending",
      action: { reply: { intent: "ask_response", payload: { answer: 'Hi Bob Example, Alice Example here: yes to "lunch tomorrow?"' } }, ruleId: rule.id },
    });
    expect(action.reason).toContain("drafted");
    const runs = await json(await asOwner(alice, `/api/svc/rules/${rule.id}/runs`));
    expect(runs.items[0]).toMatchObject({ outcome: "drafted", detail: { pendingActionId: message.pendingActionId, autonomy: "draft_only" } });

    const decided = await asOwner(alice, `/api/svc/pending/${message.pendingActionId}`, { body: { decision: "approve" } });
    expect(await json(decided)).toMatchObject({ status: "approved", result: { message: "responded" } });
    expect(await alice.drainOutbox()).toBe(1);
    expect((await bobsAnswers())[0]).toMatchObject({ inReplyTo: askId, payload: { answer: 'Hi Bob Example, Alice Example here: yes to "lunch tomorrow?"' } });
  });

  test("a sender in trustedDids is answered directly below full; `none` only labels", async () => {
    await asOwner(alice, "/api/svc/rules", { body: { name: "tag questions", priority: 1, match: { intents: ["ask"] }, action: { type: "label", labels: ["question"] } } });
    const answer = await json(await asOwner(alice, "/api/svc/rules", { body: ASK_RULE }));

    await asOwner(alice, "/api/svc/policy", { method: "PUT", body: { maxAutonomyLevel: "draft_only", trustedDids: [bob.agentId] } });
    const first = await bobAsks("lunch?");
    runAssistantJob(alice);
    expect(await alice.drainOutbox()).toBe(1);
    expect(await bobsAnswers()).toHaveLength(1);

    await asOwner(alice, "/api/svc/policy", { method: "PUT", body: { maxAutonomyLevel: "none", trustedDids: [bob.agentId] } });
    const second = await bobAsks("lunch again?");
    runAssistantJob(alice);
    expect(await alice.drainOutbox()).toBe(0);
    const inbox = await json(await asOwner(alice, "/api/svc/inbox?intent=ask"));
    const byId = Object.fromEntries(inbox.items.map((m: { id: string }) => [m.id, m]));
    expect(byId[first].labels).toEqual(["question"]);
    expect(byId[second].labels).toEqual(["question"]);
    expect(byId[second].status).toBe("unread");
    const runs = await json(await asOwner(alice, `/api/svc/rules/${answer.id}/runs`));
    expect(runs.items.map((r: { outcome: string }) => r.outcome)).toEqual(["suppressed", "sent"]);
    const labeled = await json(await asOwner(alice, "/api/svc/inbox?label=question"));
    expect(labeled.items).toHaveLength(2);
  });

  test("hold and decline: first terminal action wins, in priority order", async () => {
    await asOwner(alice, "/api/svc/policy", { method: "PUT", body: { maxAutonomyLevel: "full" } });
    const hold = await json(await asOwner(alice, "/api/svc/rules", { body: { name: "hold urgent", priority: 5, match: { intents: ["ask"], payload: [{ path: "question", op: "contains", value: "urgent" }] }, action: { type: "hold", reason: "urgent questions are mine" } } }));
    const decline = await json(await asOwner(alice, "/api/svc/rules", { body: { name: "no asks", priority: 10, match: { intents: ["ask"] }, action: { type: "decline" } } }));
    const urgent = await bobAsks("URGENT: call me");
    const other = await bobsAnswers();
    runAssistantJob(alice);
    const held = await json(await asOwner(alice, `/api/svc/inbox/${urgent}`));
    expect(held.status).toBe("pending");
    expect((await json(await asOwner(alice, `/api/svc/pending/${held.pendingActionId}`))).reason).toContain("urgent questions are mine");
    expect((await json(await asOwner(alice, `/api/svc/rules/${decline.id}/runs`))).items).toHaveLength(0);

    const plain = await bobAsks("What is your favourite colour?");
    runAssistantJob(alice);
    // ask_response has no declining status: the ask is rejected, nothing is sent.
    expect((await json(await asOwner(alice, `/api/svc/inbox/${plain}`))).status).toBe("rejected");
    expect(await alice.drainOutbox()).toBe(0);
    expect(other).toHaveLength(0);
    expect((await json(await asOwner(alice, `/api/svc/rules/${hold.id}/runs`))).items[0]).toMatchObject({ outcome: "held" });
    expect((await json(await asOwner(alice, `/api/svc/rules/${decline.id}/runs`))).items[0]).toMatchObject({ outcome: "rejected" });
  });
});
