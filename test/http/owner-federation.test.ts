import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { bootNetworkPair, stopNodes, type NetworkNode } from "../helpers/boot.ts";
import { postIntent, signedIntent } from "../helpers/ink.ts";
import { asOwner } from "../helpers/owner.ts";
import { json } from "../helpers/process.ts";

let alice: NetworkNode;
let bob: NetworkNode;
beforeEach(async () => void ({ alice, bob } = await bootNetworkPair()));
afterEach(() => stopNodes(alice, bob));

/** Alice connects to Bob through the owner API and Bob accepts through his. */
async function connect() {
  const added = await asOwner(alice, "/api/svc/connections", { body: { cardUrl: bob.cardUrl, context: "hello" } });
  expect(added.status).toBe(202);
  await alice.drainOutbox();
  const pending = await json(await asOwner(bob, "/api/svc/pending"));
  const decided = await asOwner(bob, `/api/svc/pending/${pending.items[0].id}`, { body: { decision: "approve" } });
  expect(decided.status).toBe(200);
  await bob.drainOutbox();
}

describe("owner API for federation", () => {
  test("every route needs the owner token", async () => {
    for (const [method, path] of [
      ["GET", "/api/svc/inbox"], ["GET", "/api/svc/inbox/search"], ["GET", "/api/svc/inbox/x"], ["POST", "/api/svc/inbox/x/respond"],
      ["GET", "/api/svc/connections"], ["POST", "/api/svc/connections"], ["GET", "/api/svc/connections/x"], ["PATCH", "/api/svc/connections/x"],
      ["GET", "/api/svc/conversations"], ["GET", "/api/svc/conversations/x"], ["POST", "/api/svc/intents"], ["GET", "/api/svc/intents/x"],
      ["GET", "/api/svc/pending"], ["GET", "/api/svc/pending/x"], ["POST", "/api/svc/pending/x"],
    ] as const) {
      const res = await alice.request(path, { method, headers: { "content-type": "application/json" }, ...(method === "GET" ? {} : { body: "{}" }) });
      expect({ path, status: res.status }).toEqual({ path, status: 401 });
      expect(Object.keys(await json(res)).sort()).toEqual(["error", "message"]);
    }
  });

  test("connect, accept, send, answer and read threads entirely through HTTP", async () => {
    await connect();
    const connections = await json(await asOwner(alice, "/api/svc/connections?status=connected"));
    expect(connections.items).toHaveLength(1);
    expect(connections.items[0]).toMatchObject({ agentId: bob.agentId, status: "connected" });

    const sent = await asOwner(alice, "/api/svc/intents", { body: { to: bob.agentId, intent: "ask", payload: { question: "Lunch?" } } });
    expect(sent.status).toBe(202);
    const { id, correlationId, status } = await json(sent);
    expect(status).toBe("queued");
    expect((await json(await asOwner(alice, `/api/svc/intents/${id}`))).delivery).toMatchObject({ state: "queued", attempts: 0 });
    await alice.drainOutbox();
    expect((await json(await asOwner(alice, `/api/svc/intents/${id}`))).delivery).toMatchObject({ state: "delivered", attempts: 1 });

    const inbox = await json(await asOwner(bob, "/api/svc/inbox?intent=ask"));
    expect(inbox.items[0]).toMatchObject({ id, from: alice.agentId, intent: "ask", payload: { question: "Lunch?" }, status: "pending" });
    const answered = await asOwner(bob, `/api/svc/inbox/${id}/respond`, { body: { payload: { answer: "Sure" } } });
    expect(answered.status).toBe(202);
    await bob.drainOutbox();
    const reply = await json(await asOwner(alice, "/api/svc/inbox/search?intent=ask_response"));
    expect(reply.items[0]).toMatchObject({ correlationId, inReplyTo: id, payload: { answer: "Sure" } });
    const threads = await json(await asOwner(alice, "/api/svc/conversations"));
    const thread = await json(await asOwner(alice, `/api/svc/conversations/${threads.items.find((t: { correlationId: string }) => t.correlationId === correlationId).id}`));
    expect(thread.messages.map((m: { direction: string; intent: string }) => `${m.direction}:${m.intent}`)).toEqual(["outbound:ask", "inbound:ask_response"]);
  });

  test("POST /api/svc/intents rejects bad input with 400/409 and a clear message", async () => {
    await connect();
    const cases: Array<[unknown, number, RegExp]> = [
      [{ to: bob.agentId, intent: "dance", payload: {} }, 400, /not one of the 15 INK intents/],
      [{ to: bob.agentId, intent: "ask", payload: { question: 42 } }, 400, /payload/],
      [{ to: bob.agentId, intent: "ask", payload: { question: "x", bogus: 1 } }, 400, /payload/],
      [{ to: "svc:z6MkpTHR8VNsBxYAAWHut2Geadd9jSwuBV8xRoAnwWsdvktH", intent: "ping", payload: {} }, 400, /pass cardUrl/],
      [{ intent: "ping", payload: {} }, 400, /to or cardUrl is required/],
      [{ to: bob.agentId, intent: "ping", payload: {}, expiresAt: "yesterday" }, 400, /expiresAt/],
      [{ to: bob.agentId, intent: "ping" }, 400, /payload/],
      [{ to: alice.agentId, intent: "ping", payload: {}, cardUrl: alice.cardUrl }, 400, /own agent/],
      [{ intent: "ping", payload: {}, cardUrl: `http://bob.kith.test/ink/v1/${bob.agentId}/agent.json` }, 400, /no valid Agent Card.*invalid_url/],
      [{ intent: "ping", payload: {}, cardUrl: `${bob.url}/ink/v1/${encodeURIComponent(alice.agentId!)}/agent.json` }, 400, /no valid Agent Card.*status/],
    ];
    for (const [body, status, pattern] of cases) {
      const res = await asOwner(alice, "/api/svc/intents", { body });
      const out = await json(res);
      expect({ body, status: res.status }).toEqual({ body, status });
      expect(out.message).toMatch(pattern);
    }
  });

  test("lists paginate with a stable cursor and reject bad parameters", async () => {
    await connect();
    for (let i = 0; i < 5; i++) {
      const req = signedIntent("bob", alice, { intent: "ping", payload: { note: `n${i}` } });
      expect((await postIntent(alice, req)).status).toBe(202);
      alice.clock.advance(1000);
    }
    const first = await json(await asOwner(alice, "/api/svc/inbox?intent=ping&limit=2"));
    expect(first.items.map((m: { payload: { note: string } }) => m.payload.note)).toEqual(["n4", "n3"]);
    const second = await json(await asOwner(alice, `/api/svc/inbox?intent=ping&limit=2&cursor=${first.nextCursor}`));
    expect(second.items.map((m: { payload: { note: string } }) => m.payload.note)).toEqual(["n2", "n1"]);
    const third = await json(await asOwner(alice, `/api/svc/inbox?intent=ping&limit=2&cursor=${second.nextCursor}`));
    expect(third.items).toHaveLength(1);
    expect(third.nextCursor).toBeNull();
    const search = await json(await asOwner(alice, "/api/svc/inbox/search?q=N3"));
    expect(search.items.map((m: { payload: { note: string } }) => m.payload.note)).toEqual(["n3"]);
    const from = await json(await asOwner(alice, `/api/svc/inbox/search?from=${encodeURIComponent(bob.agentId!)}&intent=ping`));
    expect(from.items).toHaveLength(5);
    for (const bad of ["limit=0", "limit=201", "limit=abc", "cursor=garbage", "status=nope"]) {
      const res = await asOwner(alice, `/api/svc/inbox?${bad}`);
      expect({ bad, status: res.status }).toEqual({ bad, status: 400 });
    }
    expect((await asOwner(alice, "/api/svc/inbox/search?after=last-week")).status).toBe(400);
    expect((await asOwner(alice, "/api/svc/connections?status=friends")).status).toBe(400);
    expect((await asOwner(alice, "/api/svc/inbox/does-not-exist")).status).toBe(404);
  });

  test("inbox search by status and by receipt time (after/before, both inclusive), alone and combined", async () => {
    await connect();
    expect((await asOwner(alice, "/api/svc/policy", { method: "PUT", body: { maxAutonomyLevel: "full" } })).status).toBe(200);
    const received: string[] = [];
    for (let i = 0; i < 5; i++) {
      expect((await postIntent(alice, signedIntent("bob", alice, { intent: "ping", payload: { note: `n${i}` } }))).status).toBe(200);
      received.push(new Date(alice.clock.now()).toISOString());
      alice.clock.advance(1000);
    }
    expect((await asOwner(alice, "/api/svc/policy", { method: "PUT", body: { maxAutonomyLevel: "draft_only" } })).status).toBe(200);
    expect((await postIntent(alice, signedIntent("bob", alice, { intent: "ping", payload: { note: "held" } }))).status).toBe(202);
    const n1 = (await json(await asOwner(alice, "/api/svc/inbox/search?q=n1"))).items[0];
    expect((await asOwner(alice, `/api/svc/inbox/${n1.id}`)).status).toBe(200); // opening it marks it read
    const notes = async (query: string) => (await json(await asOwner(alice, `/api/svc/inbox/search?intent=ping&${query}`))).items.map((m: { payload: { note: string } }) => m.payload.note);
    expect(await notes("status=read")).toEqual(["n1"]);
    expect(await notes("status=unread")).toEqual(["n4", "n3", "n2", "n0"]);
    expect(await notes("status=pending")).toEqual(["held"]);
    expect(await notes("status=responded")).toEqual([]);
    expect(await notes(`before=${received[2]}`)).toEqual(["n2", "n1", "n0"]);
    expect(await notes(`after=${received[1]}&before=${received[3]}`)).toEqual(["n3", "n2", "n1"]);
    expect(await notes(`before=${new Date(Date.parse(received[0]!) - 1).toISOString()}`)).toEqual([]);
    expect(await notes(`status=unread&before=${received[2]}`)).toEqual(["n2", "n0"]);
    expect((await asOwner(alice, "/api/svc/inbox/search?before=yesterday")).status).toBe(400);
  });

  test("connection status changes follow the allowed transitions", async () => {
    await connect();
    const id = (await json(await asOwner(alice, "/api/svc/connections"))).items[0].id;
    expect((await asOwner(alice, `/api/svc/connections/${id}`, { method: "PATCH", body: { status: "connected" } })).status).toBe(200); // no-op
    const bad = await asOwner(alice, `/api/svc/connections/${id}`, { method: "PATCH", body: { status: "declined" } });
    expect(bad.status).toBe(409);
    expect((await json(bad)).message).toContain("connected connection cannot become declined");
    expect((await asOwner(alice, `/api/svc/connections/${id}`, { method: "PATCH", body: { status: "friends" } })).status).toBe(400);
    const blocked = await asOwner(alice, `/api/svc/connections/${id}`, { method: "PATCH", body: { status: "blocked" } });
    expect(await json(blocked)).toMatchObject({ status: "blocked" });
    const refused = await postIntent(alice, signedIntent("bob", alice, { intent: "ping", payload: {} }));
    expect(refused.status).toBe(403);
    expect((await asOwner(alice, "/api/svc/connections/con_nope", { method: "PATCH", body: { status: "blocked" } })).status).toBe(404);
  });

  test("a pending action is decided once; decisions are validated", async () => {
    const res = await postIntent(alice, signedIntent("bob", alice, { intent: "connection_request", payload: { method: "qr", context: "hi", profileSnapshot: { headline: "", skills: [], interests: [], openTo: [] } } }), { headers: { link: `<${bob.cardUrl}>; rel="agent-card"` } });
    const { pendingActionId } = await json(res);
    expect((await asOwner(alice, `/api/svc/pending/${pendingActionId}`, { body: { decision: "maybe" } })).status).toBe(400);
    const rejected = await asOwner(alice, `/api/svc/pending/${pendingActionId}`, { body: { decision: "reject" } });
    expect(await json(rejected)).toMatchObject({ status: "rejected", kind: "connection_request" });
    const again = await asOwner(alice, `/api/svc/pending/${pendingActionId}`, { body: { decision: "approve" } });
    expect(again.status).toBe(409);
    expect((await json(await asOwner(alice, "/api/svc/connections"))).items[0].status).toBe("declined");
    expect((await json(await asOwner(alice, "/api/svc/pending?status=all"))).items).toHaveLength(1);
    expect((await json(await asOwner(alice, "/api/svc/pending"))).items).toHaveLength(0);
  });

  test("the OpenAPI document describes these routes and their record shapes", async () => {
    const doc = await json(await alice.request("/.well-known/openapi.json"));
    for (const path of ["/api/svc/inbox", "/api/svc/inbox/search", "/api/svc/inbox/{id}", "/api/svc/inbox/{id}/respond", "/api/svc/connections", "/api/svc/connections/{id}", "/api/svc/conversations", "/api/svc/conversations/{id}", "/api/svc/intents", "/api/svc/pending", "/api/svc/pending/{id}"]) {
      expect(doc.paths[path]).toBeDefined();
    }
    const inbox = doc.paths["/api/svc/inbox"].get;
    expect(inbox.security).toEqual([{ ownerBearer: [] }]);
    const item = inbox.responses["200"].content["application/json"].schema.properties.items.items;
    expect(item.required).toEqual(expect.arrayContaining(["id", "from", "intent", "payload"]));
    expect(doc.paths["/api/svc/pending/{id}"].post.requestBody.content["application/json"].schema.properties.decision.enum).toEqual(["approve", "reject"]);
    expect(doc.paths["/api/svc/connections/{id}"].patch.requestBody.content["application/json"].schema.properties.status).toBeDefined();
  });
});
