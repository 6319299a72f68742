import { afterEach, describe, expect, test } from "bun:test";
import { connections } from "../../src/db/schema/index.ts";
import { formatTimestamp, signTransport, validateAgentCard, verifyAgentCardProof } from "../../src/ink/index.ts";
import { bootTestApp, type TestNode } from "../helpers/boot.ts";
import { freshNonce } from "../helpers/ink.ts";
import { asOwner } from "../helpers/owner.ts";
import { personaKey } from "../helpers/personas.ts";
import { json } from "../helpers/process.ts";

/**
 * SPEC: "404 when the agent is absent or private". The owner makes the card private with
 * PUT /api/svc/visibility; every public path then answers as if there were no agent, connections
 * still get the card through the signed card query, and discovery refuses to list it.
 */
let node: TestNode;
afterEach(() => node?.close());

const cardPaths = (n: TestNode) => [
  `/ink/v1/${encodeURIComponent(n.agentId!)}/agent.json`,
  `/ink/v1/${n.agentId}/agent.json`,
  `/agents/${n.agentId}/agent.json`,
  "/.well-known/ink/agent.json",
];

const setVisibility = (n: TestNode, body: unknown) => asOwner(n, "/api/svc/visibility", { method: "PUT", body });

/** Bob asks Alice's node for her card with a signed agent-card-query. */
async function cardQuery(n: TestNode): Promise<Response> {
  const path = `/ink/v1/${n.agentId}/agent-card-query`;
  const body = { protocol: "ink/0.1", type: "network.ink.agent_card_query", from: `svc:${personaKey("bob", "signing").publicKeyMultibase}`, to: n.agentId, nonce: freshNonce(), timestamp: formatTimestamp(n.clock.now()) };
  const signed = signTransport({ method: "POST", path, recipientDid: n.agentId!, body, timestamp: body.timestamp }, personaKey("bob", "signing").privateKey, "bootstrap");
  if (!signed.ok) throw new Error("sign");
  return n.request(path, { method: "POST", headers: { "content-type": "application/json", authorization: signed.authorization }, body: JSON.stringify(body) });
}

describe("card visibility", () => {
  test("private: every public card path answers exactly as for an absent agent, the handle is unknown, ai.txt names no agent; public again restores it", async () => {
    node = bootTestApp();
    expect(await json(await asOwner(node, "/api/svc"))).toMatchObject({ visibility: "public" });
    const absent = await node.request(`/ink/v1/${encodeURIComponent(`svc:${personaKey("bob", "signing").publicKeyMultibase}`)}/agent.json`);
    const absentBody = await absent.text();

    const res = await setVisibility(node, { visibility: "private" });
    expect(res.status).toBe(200);
    expect(await json(res)).toEqual({ visibility: "private" });
    expect(await json(await asOwner(node, "/api/svc"))).toMatchObject({ visibility: "private" });
    for (const path of cardPaths(node)) {
      const r = await node.request(path);
      expect({ path, status: r.status, body: await r.text() }).toEqual({ path, status: 404, body: absentBody });
    }
    expect(await json(await node.request("/alice"))).toEqual({ found: false, agentId: null, handle: "alice" });
    expect(await json(await node.request("/unknown-handle"))).toEqual({ found: false, agentId: null, handle: "unknown-handle" });
    const aiTxt = await (await node.request("/ai.txt")).text();
    expect(aiTxt).not.toContain(node.agentId!);

    expect((await setVisibility(node, { visibility: "public" })).status).toBe(200);
    for (const path of cardPaths(node)) expect((await node.request(path)).status).toBe(200);
    const card = await json(await node.request(cardPaths(node)[0]!));
    expect(card.visibility).toBe("public");
    expect(await json(await node.request("/alice"))).toMatchObject({ found: true, agentId: node.agentId });
  });

  test("the signed card query: connections get the private card (visibility private, signed, INK-valid); strangers a 404", async () => {
    node = bootTestApp();
    await setVisibility(node, { visibility: "private" });
    const stranger = await cardQuery(node);
    expect(stranger.status).toBe(404);
    node.db.insert(connections).values({ id: "c-bob", principal: `key:${personaKey("bob", "signing").publicKeyMultibase}`, agentId: `svc:${personaKey("bob", "signing").publicKeyMultibase}`, status: "connected", initiatedBy: "us", createdAt: 0, updatedAt: 0 }).run();
    const connected = await cardQuery(node);
    expect(connected.status).toBe(200);
    expect(connected.headers.get("ink-card-scope")).toBe("connected");
    const card = await json(connected);
    expect(card.visibility).toBe("private");
    expect(card.discovery).toBeUndefined();
    expect(validateAgentCard(card)).toMatchObject({ ok: true });
    expect(verifyAgentCardProof(card)).toMatchObject({ ok: true, kind: "signed" });
  });

  test("discovery: publishing a private card is refused, and a published agent must be unpublished before it goes private", async () => {
    node = bootTestApp();
    expect((await asOwner(node, "/api/svc/discovery/publish", { body: {} })).status).toBe(200);
    const refused = await setVisibility(node, { visibility: "private" });
    expect(refused.status).toBe(409);
    expect((await json(refused)).message).toContain("unpublish it first");
    expect((await node.request(cardPaths(node)[0]!)).status).toBe(200);
    expect((await asOwner(node, "/api/svc/discovery/unpublish", { method: "POST" })).status).toBe(200);
    expect((await setVisibility(node, { visibility: "private" })).status).toBe(200);
    const publish = await asOwner(node, "/api/svc/discovery/publish", { body: {} });
    expect(publish.status).toBe(409);
    expect((await json(publish)).message).toContain("card is private");
    const discovered = await json(await node.request("/discover?q=alice"));
    expect(discovered.results).toEqual([]);
  });

  test("bad bodies answer 400 naming the member, without a token 401; nothing changes", async () => {
    node = bootTestApp();
    for (const body of [{ visibility: "secret" }, { visibility: 1 }, {}, [], { visibility: "private", extra: true }]) {
      const r = await setVisibility(node, body);
      expect({ body, status: r.status }).toEqual({ body, status: 400 });
      expect(await json(r)).toMatchObject({ error: "invalid_input" });
    }
    const unauthenticated = await node.request("/api/svc/visibility", { method: "PUT", headers: { "content-type": "application/json" }, body: '{"visibility":"private"}' });
    expect(unauthenticated.status).toBe(401);
    expect((await node.request(cardPaths(node)[0]!)).status).toBe(200);
  });
});
