import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { formatTimestamp, signTransport, validateAgentCard } from "../../src/ink/index.ts";
import { freshNonce } from "../helpers/ink.ts";
import { personaKey } from "../helpers/personas.ts";
import { bootNetworkPair, stopNodes, type NetworkNode } from "../helpers/boot.ts";
import { asOwner } from "../helpers/owner.ts";
import { json } from "../helpers/process.ts";

let alice: NetworkNode;
let bob: NetworkNode;
beforeEach(async () => void ({ alice, bob } = await bootNetworkPair()));
afterEach(() => stopNodes(alice, bob));

const PUBLIC = { headline: "Builds self-hosted agents", skills: ["typescript", "sqlite"], interests: ["federation"], openTo: ["collaboration"], availability: { timezone: "Europe/Paris", responseSla: "a day" } };
const CONNECTED = { headline: "Alice — ask me about Kith", skills: ["typescript"], interests: [], openTo: ["coffee"] };

describe("profile snapshots", () => {
  test("PUT/GET/DELETE by scope; public feeds the card (still a valid INK card), connected the connection response", async () => {
    expect((await json(await asOwner(alice, "/api/svc/profile"))).items).toEqual([]);
    const put = await asOwner(alice, "/api/svc/profile/public", { method: "PUT", body: PUBLIC });
    expect(put.status).toBe(200);
    expect(await json(put)).toMatchObject({ scope: "public", snapshot: PUBLIC });
    await asOwner(alice, "/api/svc/profile/connected", { method: "PUT", body: CONNECTED });
    await asOwner(alice, "/api/svc/profile/investors", { method: "PUT", body: { ...CONNECTED, headline: "for investors" } });
    const list = await json(await asOwner(alice, "/api/svc/profile?limit=2"));
    expect(list.items.map((s: { scope: string }) => s.scope)).toEqual(["connected", "investors"]);
    expect((await json(await asOwner(alice, `/api/svc/profile?cursor=${list.nextCursor}`))).items.map((s: { scope: string }) => s.scope)).toEqual(["public"]);

    const card = await json(await alice.request(`/ink/v1/${alice.agentId}/agent.json`));
    expect(card.profileSnapshot).toEqual(PUBLIC);
    expect(validateAgentCard(card).ok).toBe(true);

    // Alice asks Bob to connect: the request carries her public snapshot.
    await asOwner(alice, "/api/svc/connections", { body: { cardUrl: bob.cardUrl, context: "hi" } });
    await alice.drainOutbox();
    const pendingOnBob = await json(await asOwner(bob, "/api/svc/connections"));
    expect(pendingOnBob.items[0].profileSnapshot).toEqual(PUBLIC);
    // Bob accepts; the connection is made on both sides.
    await asOwner(bob, `/api/svc/connections/${pendingOnBob.items[0].id}`, { method: "PATCH", body: { status: "connected" } });
    await bob.drainOutbox();
    expect((await json(await asOwner(alice, "/api/svc/connections"))).items[0]).toMatchObject({ status: "connected" });

    expect(await json(await asOwner(alice, "/api/svc/profile/public", { method: "DELETE" }))).toEqual({ scope: "public", deleted: true });
    const bare = await json(await alice.request(`/ink/v1/${alice.agentId}/agent.json`));
    expect(bare.profileSnapshot).toBeUndefined();
    expect((await asOwner(alice, "/api/svc/profile/public", { method: "DELETE" })).status).toBe(404);
  });

  test("a connection response carries the connected snapshot (public when none)", async () => {
    await asOwner(alice, "/api/svc/profile/public", { method: "PUT", body: PUBLIC });
    await asOwner(alice, "/api/svc/profile/connected", { method: "PUT", body: CONNECTED });
    await asOwner(bob, "/api/svc/connections", { body: { cardUrl: alice.cardUrl, context: "hi" } });
    await bob.drainOutbox();
    const pending = await json(await asOwner(alice, "/api/svc/pending"));
    await asOwner(alice, `/api/svc/pending/${pending.items[0].id}`, { body: { decision: "approve" } });
    await alice.drainOutbox();
    expect((await json(await asOwner(bob, "/api/svc/connections"))).items[0]).toMatchObject({ status: "connected", profileSnapshot: CONNECTED });
  });

  test("card queries: a stranger gets the public snapshot, a connection the connected one", async () => {
    await asOwner(alice, "/api/svc/profile/public", { method: "PUT", body: PUBLIC });
    await asOwner(alice, "/api/svc/profile/connected", { method: "PUT", body: CONNECTED });
    const cardQuery = async () => {
      const path = `/ink/v1/${alice.agentId}/agent-card-query`;
      const body = { protocol: "ink/0.1", type: "network.svc.agent_card_query", from: bob.agentId, to: alice.agentId, nonce: freshNonce(), timestamp: formatTimestamp(alice.clock.now()) };
      const signed = signTransport({ method: "POST", path, recipientDid: alice.agentId!, body, timestamp: body.timestamp }, personaKey("bob", "signing").privateKey, "sig-bob-0");
      if (!signed.ok) throw new Error("sign");
      const res = await alice.request(path, { method: "POST", headers: { "content-type": "application/json", authorization: signed.authorization }, body: JSON.stringify(body) });
      expect(res.status).toBe(200);
      return json(res);
    };
    expect((await cardQuery()).profileSnapshot).toEqual(PUBLIC);
    await asOwner(bob, "/api/svc/connections", { body: { cardUrl: alice.cardUrl, context: "hi" } });
    await bob.drainOutbox();
    const pending = await json(await asOwner(alice, "/api/svc/pending"));
    await asOwner(alice, `/api/svc/pending/${pending.items[0].id}`, { body: { decision: "approve" } });
    const card = await cardQuery();
    expect(card.profileSnapshot).toEqual(CONNECTED);
    expect(validateAgentCard(card).ok).toBe(true);
  });

  test("bad scopes and snapshots answer 400 with the member named; custom scopes are capped", async () => {
    const cases: Array<[string, unknown, RegExp]> = [
      ["Public", PUBLIC, /scope: public, connected, or a custom name/],
      ["x".repeat(33), PUBLIC, /scope/],
      ["public", { ...PUBLIC, headline: "h".repeat(501) }, /headline/],
      ["public", { ...PUBLIC, skills: Array.from({ length: 51 }, (_, i) => `s${i}`) }, /skills/],
      ["public", { ...PUBLIC, skills: ["s".repeat(101)] }, /skills/],
      ["public", { ...PUBLIC, openTo: Array.from({ length: 21 }, (_, i) => `o${i}`) }, /openTo/],
      ["public", { headline: "x", skills: [], interests: [] }, /openTo/],
      ["public", { ...PUBLIC, mood: "happy" }, /mood/],
      ["public", { ...PUBLIC, availability: { meetingHours: "9-5" } }, /timezone/],
      ["public", [PUBLIC], /object/],
    ];
    for (const [scope, body, message] of cases) {
      const res = await asOwner(alice, `/api/svc/profile/${scope}`, { method: "PUT", body });
      expect({ scope, status: res.status }).toEqual({ scope, status: 400 });
      expect({ scope, message: (await json(res)).message }).toEqual({ scope, message: expect.stringMatching(message) });
    }
    for (let i = 0; i < 20; i++) expect((await asOwner(alice, `/api/svc/profile/scope-${i}`, { method: "PUT", body: PUBLIC })).status).toBe(200);
    expect((await asOwner(alice, "/api/svc/profile/scope-20", { method: "PUT", body: PUBLIC })).status).toBe(409);
    expect((await asOwner(alice, "/api/svc/profile/public", { method: "PUT", body: PUBLIC })).status).toBe(200);
    expect((await asOwner(alice, "/api/svc/profile/scope-3", { method: "PUT", body: CONNECTED })).status).toBe(200);
  });

  test("text that is not valid Unicode (a lone surrogate) is refused before it can reach the signed card", async () => {
    const cardBefore = await json(await alice.request(`/ink/v1/${alice.agentId}/agent.json`));
    expect(cardBefore.cardSignature).toBeDefined();
    const cases: Array<[string, string, unknown, string]> = [
      ["PUT", "/api/svc/profile/public", { ...PUBLIC, headline: "\ud800 hi" }, "body.headline"],
      ["PUT", "/api/svc/profile/public", { ...PUBLIC, skills: ["ok", "b\udc00d"] }, "body.skills[1]"],
      ["PUT", "/api/svc/profile/connected", { ...CONNECTED, availability: { timezone: "UTC", "\ud83d": "x" } }, "body.availability (a member name)"],
      ["POST", "/api/svc/discovery/publish", { tags: ["a\ud800"] }, "body.tags[0]"],
    ];
    for (const [method, path, body, where] of cases) {
      const res = await asOwner(alice, path, { method, body });
      expect({ path, status: res.status }).toEqual({ path, status: 400 });
      const err = await json(res);
      expect(err.error).toBe("invalid_input");
      expect(err.message).toContain(`${where}: not valid Unicode`);
    }
    // a well-formed astral character (a surrogate pair) is text like any other
    expect((await asOwner(alice, "/api/svc/profile/public", { method: "PUT", body: { ...PUBLIC, headline: "Builds agents 🚀" } })).status).toBe(200);
    const card = await json(await alice.request(`/ink/v1/${alice.agentId}/agent.json`));
    expect(card.cardSignature).toBeDefined();
    expect(validateAgentCard(card).ok).toBe(true);
    // and a caller without the owner token learns nothing beyond 401
    const anonymous = await alice.request("/api/svc/profile/public", { method: "PUT", headers: { "content-type": "application/json" }, body: '{"headline":"\\ud800"}' });
    expect(anonymous.status).toBe(401);
  });
});
