import { afterEach, expect, test } from "bun:test";
import { decidePending } from "../../src/domain/approvals/decide-pending.ts";
import { listPending } from "../../src/domain/approvals/list-pending.ts";
import { addConnection } from "../../src/domain/connections/add-connection.ts";
import { listInbox } from "../../src/domain/inbox/list-inbox.ts";
import { sendIntent } from "../../src/domain/outbox/send-intent.ts";
import { connections } from "../../src/db/schema/index.ts";
import { formatTimestamp, signTransport } from "../../src/ink/index.ts";
import { bootNetworkNode, bootTestApp, stopNodes, type NetworkNode } from "../helpers/boot.ts";
import { freshNonce, postIntent, signedIntent } from "../helpers/ink.ts";
import { personaKey } from "../helpers/personas.ts";
import { testClock } from "../helpers/clock.ts";
import { asOwner } from "../helpers/owner.ts";

/**
 * A private card between real nodes: Alice hides her card; Bob, already connected, keeps talking
 * with her after his cached card expires (his node falls back to the signed card query), while
 * Carol, a stranger, can neither fetch the card nor connect.
 */
let nodes: NetworkNode[] = [];
afterEach(() => stopNodes(...nodes));
const owner = { kind: "owner", subject: "owner" } as const;

test("connections keep working through the signed card query; a stranger cannot reach a private agent", async () => {
  const clock = testClock();
  const alice = await bootNetworkNode({ name: "alice", clock });
  const bob = await bootNetworkNode({ name: "bob", clock });
  const carol = await bootNetworkNode({ name: "carol", clock });
  nodes = [alice, bob, carol];
  await addConnection(bob.ctx(owner), { cardUrl: alice.cardUrl!, context: "Hello" });
  await bob.drainOutbox();
  decidePending(alice.ctx(owner), listPending(alice.ctx(owner), {}).items[0]!.id, { decision: "approve" });
  await alice.drainOutbox();

  expect((await asOwner(alice, "/api/svc/visibility", { method: "PUT", body: { visibility: "private" } })).status).toBe(200);
  expect((await alice.request(new URL(alice.cardUrl!).pathname)).status).toBe(404);
  clock.advance(2 * 24 * 60 * 60 * 1000); // past Bob's card cache and its stale grace: he must fetch again

  // Alice -> Bob: Bob needs her keys; the public path says 404, the card query answers him.
  const ask = await sendIntent(alice.ctx(owner), { to: bob.agentId!, intent: "ask", payload: { question: "Still there?" } });
  await alice.drainOutbox();
  expect(listInbox(bob.ctx(owner), { intent: "ask" }).items.map((m) => m.id)).toContain(ask.id);
  // Bob -> Alice: delivering needs her card (endpoint, keys): the same fallback.
  const reply = await sendIntent(bob.ctx(owner), { to: alice.agentId!, intent: "ping", payload: { note: "yes" } });
  await bob.drainOutbox();
  expect(listInbox(alice.ctx(owner), { intent: "ping" }).items.map((m) => m.id)).toContain(reply.id);

  // Carol, a stranger: no card, so no connection request.
  await expect(addConnection(carol.ctx(owner), { cardUrl: alice.cardUrl!, context: "Hi" })).rejects.toThrow();
  expect(listPending(alice.ctx(owner), {}).items.filter((p) => p.kind === "connection_request")).toHaveLength(0);
});

// Review of issues 12/21, defect 6: while the card is private, a stranger's request to the guessable
// endpoints is refused exactly as for an id this node does not host; connections keep working.
test("a private agent answers strangers exactly as an id not hosted here, on every signed path and for every request shape", async () => {
  const alice = bootTestApp({ persona: "alice" });
  try {
    const bobKey = personaKey("bob", "signing").publicKeyMultibase;
    alice.db.insert(connections).values({ id: "con_bob", principal: `key:${bobKey}`, agentId: `svc:${bobKey}`, status: "connected", initiatedBy: "us", createdAt: 0, updatedAt: 0 }).run();
    expect((await asOwner(alice, "/api/svc/visibility", { method: "PUT", body: { visibility: "private" } })).status).toBe(200);
    const other = `svc:${personaKey("acme", "signing").publicKeyMultibase}`;
    const answer = async (path: string, body: string, authorization = "") => {
      const res = await alice.request(path, { method: "POST", headers: { "content-type": "application/json", ...(authorization ? { authorization } : {}) }, body });
      return { status: res.status, body: await res.text() };
    };
    const stranger = signedIntent("carol", alice, { intent: "connection_request", payload: { method: "discovery", context: "found you anyway", profileSnapshot: { headline: "", skills: [], interests: [], openTo: [] } } });
    const cardQuery = (signer: "carol" | "bob") => {
      const path = `/ink/v1/${alice.agentId}/agent-card-query`;
      const body = { protocol: "ink/0.1", type: "network.svc.agent_card_query", from: `svc:${personaKey(signer, "signing").publicKeyMultibase}`, to: alice.agentId, nonce: freshNonce(), timestamp: formatTimestamp(alice.clock.now()) };
      const key = personaKey(signer, "signing");
      const signed = signTransport({ method: "POST", path, recipientDid: alice.agentId!, body, timestamp: body.timestamp }, key.privateKey, key.keyId);
      if (!signed.ok) throw new Error("sign");
      return { body: JSON.stringify(body), authorization: signed.authorization };
    };
    for (const kind of ["intent", "inbox", "agent-card-query"] as const) {
      const path = (id: string) => (kind === "intent" ? `/ink/v1/${encodeURIComponent(id)}/intent` : kind === "inbox" ? `/agents/${encodeURIComponent(id)}/inbox` : `/ink/v1/${encodeURIComponent(id)}/agent-card-query`);
      const signed = kind === "agent-card-query" ? cardQuery("carol") : { body: stranger.body, authorization: stranger.authorization };
      const absent = await answer(path(other), signed.body, signed.authorization);
      expect(absent.status).toBe(404);
      for (const [body, auth] of [[signed.body, signed.authorization], ["{}", ""], ["not json", ""], [signed.body, ""], ['{"protocol":"ink/0.1"}', signed.authorization]] as const) {
        expect(await answer(path(alice.agentId!), body, auth)).toEqual(await answer(path(other), body, auth));
      }
    }
    expect(alice.db.select().from(connections).all().map((c) => c.principal)).toEqual([`key:${bobKey}`]); // no pending request from the stranger
    // a connection keeps working: its messages and its card query
    expect([200, 202]).toContain((await postIntent(alice, signedIntent("bob", alice, { intent: "ping", payload: {} }))).status);
    const q = cardQuery("bob");
    expect((await answer(`/ink/v1/${alice.agentId}/agent-card-query`, q.body, q.authorization)).status).toBe(200);
  } finally {
    alice.close();
  }
});
