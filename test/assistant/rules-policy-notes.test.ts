import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { bootNetworkPair, stopNodes, type NetworkNode } from "../helpers/boot.ts";
import { runAssistantJob } from "../helpers/assistant.ts";
import { postIntent, signedIntent } from "../helpers/ink.ts";
import { asOwner } from "../helpers/owner.ts";
import { json } from "../helpers/process.ts";

const DAY = 86_400_000;
let alice: NetworkNode;
let bob: NetworkNode;
beforeEach(async () => void ({ alice, bob } = await bootNetworkPair()));
afterEach(() => stopNodes(alice, bob));

/** Bob's node asks to connect and Alice accepts: returns the connection id on Alice's node. */
async function connectBob(): Promise<string> {
  expect((await asOwner(bob, "/api/svc/connections", { body: { cardUrl: alice.cardUrl, context: "hello" } })).status).toBe(202);
  await bob.drainOutbox();
  const pending = await json(await asOwner(alice, "/api/svc/pending"));
  expect((await asOwner(alice, `/api/svc/pending/${pending.items[0].id}`, { body: { decision: "approve" } })).status).toBe(200);
  await alice.drainOutbox();
  return (await json(await asOwner(alice, "/api/svc/connections"))).items[0].id;
}

describe("owner API: policy", () => {
  test("GET returns the defaults; PUT replaces the whole policy; bad input answers 400 with the member named", async () => {
    expect(await json(await asOwner(alice, "/api/svc/policy"))).toEqual({
      maxAutonomyLevel: "draft_only", trustedDids: [], maxInboundRate: 10, acceptForeignAgents: true, allowedMethods: [], allowedHosts: [], allowedDids: [], blockedDids: [], updatedAt: null,
    });
    // every spelling of one key is one canonical principal (INK §2.2), stored and shown as key:z…
    const key = bob.agentId!.slice(4);
    const put = await asOwner(alice, "/api/svc/policy", { method: "PUT", body: { maxAutonomyLevel: "full", maxInboundRate: 50, trustedDids: [`svc:${key}`, `tulpa:${key}`, "did:web:Example.com"], allowedHosts: ["Example.COM."] } });
    expect(put.status).toBe(200);
    expect(await json(put)).toMatchObject({ maxAutonomyLevel: "full", maxInboundRate: 50, trustedDids: [`key:${key}`, "did:web:Example.com"], allowedHosts: ["example.com"], updatedAt: expect.any(String) });
    const replaced = await json(await asOwner(alice, "/api/svc/policy", { method: "PUT", body: { acceptForeignAgents: false } }));
    expect(replaced).toMatchObject({ maxAutonomyLevel: "draft_only", maxInboundRate: 10, trustedDids: [], acceptForeignAgents: false });

    const cases: Array<[unknown, RegExp]> = [
      [{ maxAutonomyLevel: "yolo" }, /maxAutonomyLevel: one of none, draft_only, auto_respond, full/],
      [{ maxInboundRate: 0 }, /maxInboundRate: at least 1/],
      [{ maxInboundRate: 10001 }, /maxInboundRate: at most 10000/],
      [{ maxInboundRate: 1.5 }, /maxInboundRate: an integer/],
      [{ acceptForeignAgents: "yes" }, /acceptForeignAgents: true or false/],
      [{ trustedDids: "svc:zA" }, /trustedDids: an array/],
      [{ trustedDids: ["x".repeat(513)] }, /trustedDids: each at most 512/],
      [{ blockedDids: Array.from({ length: 201 }, (_, i) => `did:web:h${i}.example`) }, /blockedDids: at most 200 entries/],
      [{ blockedDids: ["svc:zA"] }, /blockedDids: "svc:zA" is not an agent id/], // base58, but no Ed25519 key inside
      [{ trustedDids: ["not a did"] }, /trustedDids: "not a did" is not an agent id/],
      [{ blockedDids: ["svc:z0OIl"] }, /blockedDids: "svc:z0OIl" is not an agent id/],
      [{ allowedHosts: ["exa mple.com"] }, /allowedHosts: "exa mple.com" is not a host name/],
      [{ allowedMethods: [":web"] }, /allowedMethods: ":web" is not an agent-id prefix/],
      [{ colour: "blue" }, /unknown member/],
    ];
    for (const [body, message] of cases) {
      const res = await asOwner(alice, "/api/svc/policy", { method: "PUT", body });
      expect({ body, status: res.status }).toEqual({ body, status: 400 });
      expect((await json(res)).message).toMatch(message);
    }
  });

  test("the receive pipeline follows the stored policy (full stores instead of holding)", async () => {
    await connectBob();
    await asOwner(alice, "/api/svc/policy", { method: "PUT", body: { maxAutonomyLevel: "full" } });
    const res = await postIntent(alice, signedIntent("bob", alice, { intent: "ping", payload: {} }));
    expect(await json(res)).toMatchObject({ status: "stored" });
  });
});

describe("owner API: rules", () => {
  const good = { name: "ping label", match: { intents: ["ping"] }, action: { type: "label", labels: ["ping"] } };

  test("create, list in run order with pagination, get, patch, delete", async () => {
    const a = await json(await asOwner(alice, "/api/svc/rules", { body: { ...good, name: "later", priority: 50 } }));
    const b = await json(await asOwner(alice, "/api/svc/rules", { body: { ...good, name: "first", priority: 1 } }));
    const c = await json(await asOwner(alice, "/api/svc/rules", { body: good }));
    expect(c).toMatchObject({ name: "ping label", enabled: true, priority: 100, match: { intents: ["ping"] }, action: { type: "label", labels: ["ping"] } });
    const page1 = await json(await asOwner(alice, "/api/svc/rules?limit=2"));
    expect(page1.items.map((r: { id: string }) => r.id)).toEqual([b.id, a.id]);
    const page2 = await json(await asOwner(alice, `/api/svc/rules?limit=2&cursor=${page1.nextCursor}`));
    expect(page2.items.map((r: { id: string }) => r.id)).toEqual([c.id]);
    expect(page2.nextCursor).toBeNull();
    const patched = await json(await asOwner(alice, `/api/svc/rules/${c.id}`, { method: "PATCH", body: { enabled: false, priority: 0 } }));
    expect(patched).toMatchObject({ enabled: false, priority: 0, name: "ping label" });
    expect(await json(await asOwner(alice, `/api/svc/rules/${c.id}`))).toMatchObject({ enabled: false });
    expect(await json(await asOwner(alice, `/api/svc/rules/${c.id}`, { method: "DELETE" }))).toEqual({ id: c.id, deleted: true });
    expect((await asOwner(alice, `/api/svc/rules/${c.id}`)).status).toBe(404);
    expect((await asOwner(alice, `/api/svc/rules/${c.id}`, { method: "DELETE" })).status).toBe(404);
    expect((await asOwner(alice, `/api/svc/rules/${c.id}`, { method: "PATCH", body: { enabled: true } })).status).toBe(404);
  });

  test("every bad rule answers 400 with a clear message", async () => {
    const cases: Array<[unknown, RegExp]> = [
      [{ ...good, name: "" }, /name: must not be empty/],
      [{ ...good, name: "x".repeat(101) }, /name: at most 100/],
      [{ ...good, priority: -1 }, /priority: 0 to 1000/],
      [{ ...good, priority: 2.5 }, /priority: an integer/],
      [{ ...good, extra: 1 }, /invalid request/],
      [{ name: "x", action: good.action }, /match/],
      [{ ...good, match: { intents: ["dance"] } }, /"dance" is not one of the 15 INK intents/],
      [{ ...good, match: { senders: ["bob"] } }, /match.senders: "bob" is not an agent id/],
      [{ ...good, match: { layers: ["besties"] } }, /match.layers: each one of inner/],
      [{ ...good, match: { payload: [{ path: "a..b", op: "exists" }] } }, /payload\[\].path/],
      [{ ...good, match: { payload: [{ path: "a", op: "matches" }] } }, /payload\[\].op: one of equals, contains, exists/],
      [{ ...good, match: { payload: Array.from({ length: 11 }, () => ({ path: "a", op: "exists" })) } }, /at most 10 conditions/],
      [{ ...good, action: { type: "explode" } }, /action.type: one of auto_respond, decline, hold, label/],
      [{ ...good, action: { type: "label", labels: [] } }, /action.labels: at least one/],
      [{ ...good, action: { type: "label", labels: ["Bad Label"] } }, /action.labels: lower-case/],
      [{ ...good, action: { type: "auto_respond", template: { answer: "x" } } }, /exactly one intent that has a response/],
      [{ ...good, match: { intents: ["ask", "ping"] }, action: { type: "auto_respond", template: { answer: "x" } } }, /exactly one intent/],
      [{ ...good, match: { intents: ["ask"] }, action: { type: "auto_respond", template: { reply: "x" } } }, /not a valid ask_response payload/],
      [{ ...good, match: { intents: ["ask"] }, action: { type: "auto_respond", template: { answer: "{{env.SECRET}}" } } }, /unknown placeholder \{\{env.SECRET\}\}/],
      [{ ...good, match: { intents: ["schedule_meeting"] }, action: { type: "auto_respond", template: { status: "maybe" } } }, /schedule_meeting_response/],
      [{ ...good, match: { intents: ["connection_request"] }, action: { type: "decline" } }, /does not answer connection requests/],
    ];
    for (const [body, message] of cases) {
      const res = await asOwner(alice, "/api/svc/rules", { body });
      const out = await json(res);
      expect({ body, status: res.status, out }).toEqual({ body, status: 400, out: expect.anything() });
      expect({ body, message: out.message }).toEqual({ body, message: expect.stringMatching(message) });
    }
    const created = await json(await asOwner(alice, "/api/svc/rules", { body: good }));
    expect((await asOwner(alice, `/api/svc/rules/${created.id}`, { method: "PATCH", body: { action: { type: "auto_respond", template: { answer: "x" } } } })).status).toBe(400);
    expect((await asOwner(alice, "/api/svc/rules?limit=0")).status).toBe(400);
    expect((await asOwner(alice, "/api/svc/rules?cursor=nope")).status).toBe(400);
    expect((await asOwner(alice, "/api/svc/rules/rule_nope/runs")).status).toBe(404);
  });

  test("sender and layer conditions; rules never apply retroactively; disabled rules do not run", async () => {
    await connectBob();
    runAssistantJob(alice);
    const early = await postIntent(alice, signedIntent("bob", alice, { intent: "ping", payload: { note: "before" } }));
    expect(early.status).toBe(202);
    alice.clock.advance(1000);
    const bobId = `svc:${(await json(await asOwner(alice, "/api/svc/connections"))).items[0].agentId.slice(4)}`;
    const bySender = await json(await asOwner(alice, "/api/svc/rules", { body: { name: "bob", match: { senders: [bobId] }, action: { type: "label", labels: ["bob"] } } }));
    await asOwner(alice, "/api/svc/rules", { body: { name: "carol", match: { senders: ["svc:z6MkpTHR8VNsBxYAAWHut2Geadd9jSwuBV8xRoAnwWsdvktH"] }, action: { type: "label", labels: ["carol"] } } });
    await asOwner(alice, "/api/svc/rules", { body: { name: "inner", match: { layers: ["inner"] }, action: { type: "label", labels: ["inner"] } } });
    await asOwner(alice, "/api/svc/rules", { body: { name: "recognition", match: { layers: ["recognition"] }, action: { type: "label", labels: ["recognition"] } } });
    await asOwner(alice, "/api/svc/rules", { body: { name: "off", enabled: false, match: {}, action: { type: "label", labels: ["off"] } } });
    const late = await json(await postIntent(alice, signedIntent("bob", alice, { intent: "ping", payload: { note: "after" } })));
    runAssistantJob(alice);
    const inbox = await json(await asOwner(alice, "/api/svc/inbox?intent=ping"));
    const labels = Object.fromEntries(inbox.items.map((m: { payload: { note: string }; labels: string[] }) => [m.payload.note, m.labels]));
    expect(labels).toEqual({ before: [], after: ["bob", "recognition"] });
    expect((await json(await asOwner(alice, `/api/svc/rules/${bySender.id}/runs`))).items[0]).toMatchObject({ outcome: "labeled", message: { id: late.id } });
  });
});

describe("owner API: relationships", () => {
  test("layer and health are computed from traffic, recomputed as messages flow, and overridable until cleared", async () => {
    const id = await connectBob();
    runAssistantJob(alice);
    let con = await json(await asOwner(alice, `/api/svc/connections/${id}`));
    expect(con).toMatchObject({ layer: "recognition", computedLayer: "recognition", layerOverride: null, health: "strong", source: "ink" });
    expect(con.healthFactors).toMatchObject({ cadenceDays: 180 });

    // Weekly two-way traffic for three months.
    for (let week = 0; week < 13; week++) {
      await postIntent(alice, signedIntent("bob", alice, { intent: "ping", payload: { note: `w${week}` } }));
      await asOwner(alice, "/api/svc/intents", { body: { to: con.agentId, intent: "ping", payload: {} } });
      alice.clock.advance(7 * DAY);
    }
    runAssistantJob(alice);
    con = await json(await asOwner(alice, `/api/svc/connections/${id}`));
    expect(con.computedLayer).toBe("active");
    expect(["strong", "healthy"]).toContain(con.health);

    const pinned = await json(await asOwner(alice, `/api/svc/connections/${id}`, { method: "PATCH", body: { layer: "inner" } }));
    expect(pinned).toMatchObject({ layer: "inner", layerOverride: "inner", computedLayer: "active" });
    expect(pinned.healthFactors.cadenceDays).toBe(7);
    expect((await json(await asOwner(alice, "/api/svc/connections?layer=inner"))).items).toHaveLength(1);
    expect((await json(await asOwner(alice, "/api/svc/connections?layer=active"))).items).toHaveLength(0);

    // Silence: health decays without traffic (the periodic recompute), the override sticks.
    alice.clock.advance(60 * DAY);
    const { recomputeAllRelationships } = await import("../../src/domain/relationships/recompute-all-relationships.ts");
    recomputeAllRelationships(alice.ctx());
    con = await json(await asOwner(alice, `/api/svc/connections/${id}`));
    expect(con.layer).toBe("inner");
    expect(con.health).toBe("dormant");
    const cleared = await json(await asOwner(alice, `/api/svc/connections/${id}`, { method: "PATCH", body: { layer: null } }));
    expect(cleared).toMatchObject({ layerOverride: null, layer: cleared.computedLayer });
    expect(cleared.health).not.toBe("dormant");

    for (const [body, message] of [[{ layer: "bestie" }, /layer: one of inner, active, sympathy, recognition, known/], [{ layer: 3 }, /layer/]] as const) {
      const res = await asOwner(alice, `/api/svc/connections/${id}`, { method: "PATCH", body });
      expect(res.status).toBe(400);
      expect((await json(res)).message).toMatch(message);
    }
    expect((await asOwner(alice, "/api/svc/connections?health=great")).status).toBe(400);
  });

  test("health and layer never reach peers: not on the card, not in card queries", async () => {
    await connectBob();
    runAssistantJob(alice);
    const card = await (await alice.request(`/ink/v1/${alice.agentId}/agent.json`)).text();
    for (const word of ["health", "layer", "dormant", "recognition"]) expect(card).not.toContain(word);
  });

  test("notes: add and list (paginated); caps and unknown connections answer 400/404", async () => {
    const id = await connectBob();
    for (const text of ["  met at the conference  ", "likes hiking", "owes me a book"]) {
      alice.clock.advance(1000);
      const res = await asOwner(alice, `/api/svc/connections/${id}/notes`, { body: { text } });
      expect(res.status).toBe(201);
    }
    const page = await json(await asOwner(alice, `/api/svc/connections/${id}/notes?limit=2`));
    expect(page.items.map((n: { text: string }) => n.text)).toEqual(["owes me a book", "likes hiking"]);
    const rest = await json(await asOwner(alice, `/api/svc/connections/${id}/notes?limit=2&cursor=${page.nextCursor}`));
    expect(rest.items).toEqual([{ id: expect.stringMatching(/^note_/), connectionId: id, text: "met at the conference", createdAt: expect.any(String) }]);
    for (const [body, message] of [[{ text: "   " }, /text: must not be empty/], [{ text: "x".repeat(5001) }, /text: at most 5000/], [{}, /text/], [{ text: 7 }, /text: a string/]] as const) {
      const res = await asOwner(alice, `/api/svc/connections/${id}/notes`, { body });
      expect(res.status).toBe(400);
      expect((await json(res)).message).toMatch(message);
    }
    expect((await asOwner(alice, "/api/svc/connections/con_nope/notes", { body: { text: "x" } })).status).toBe(404);
    expect((await asOwner(alice, "/api/svc/connections/con_nope/notes")).status).toBe(404);
  });
});
