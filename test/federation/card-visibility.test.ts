import { afterEach, expect, test } from "bun:test";
import { decidePending } from "../../src/domain/approvals/decide-pending.ts";
import { listPending } from "../../src/domain/approvals/list-pending.ts";
import { addConnection } from "../../src/domain/connections/add-connection.ts";
import { listInbox } from "../../src/domain/inbox/list-inbox.ts";
import { sendIntent } from "../../src/domain/outbox/send-intent.ts";
import { bootNetworkNode, stopNodes, type NetworkNode } from "../helpers/boot.ts";
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
