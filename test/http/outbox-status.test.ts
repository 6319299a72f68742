import { afterEach, expect, test } from "bun:test";
import { bootNetworkPair, stopNodes, type NetworkNode } from "../helpers/boot.ts";
import { asOwner } from "../helpers/owner.ts";
import { json } from "../helpers/process.ts";

/** GET /api/svc/outbox: the backlog and the failing peers the console's node status shows. */
let alice: NetworkNode;
let bob: NetworkNode;
afterEach(() => stopNodes(alice, bob));

const status = async () => json(await asOwner(alice, "/api/svc/outbox"));
const send = async (body: Record<string, unknown>) => {
  const res = await asOwner(alice, "/api/svc/intents", { body: { to: bob.agentId, ...body } });
  expect(res.status).toBe(202);
};

test("counts per state, and a peer is listed while it has a backlog or its last attempt failed", async () => {
  ({ alice, bob } = await bootNetworkPair());
  expect(await status()).toEqual({ queued: 0, failed: 0, delivered: 0, oldestQueuedAt: null, nextAttemptAt: null, peers: [] });
  expect((await alice.request("/api/svc/outbox")).status).toBe(401);

  // A connection request is delivered; an ask before Bob accepts is refused for good (403 not_connected).
  expect((await asOwner(alice, "/api/svc/connections", { body: { cardUrl: bob.cardUrl } })).status).toBe(202);
  await alice.drainOutbox();
  await send({ intent: "ask", payload: { question: "Too early?" } });
  await alice.drainOutbox();
  const refused = await status();
  expect(refused).toMatchObject({ queued: 0, failed: 1, delivered: 1, oldestQueuedAt: null });
  expect(refused.peers).toHaveLength(1);
  expect(refused.peers[0]).toMatchObject({ agentId: bob.agentId, displayName: "Bob Example", queued: 0, failed: 1, delivered: 1, failing: true, lastStatus: 403 });
  expect(refused.peers[0].lastError).toContain("not_connected");
  expect(refused.peers[0].connectionId).toBeString();

  // Bob accepts; the next message goes through, so Bob is no longer failing (the old failure stays counted).
  const pending = await json(await asOwner(bob, "/api/svc/pending"));
  expect((await asOwner(bob, `/api/svc/pending/${pending.items[0].id}`, { body: { decision: "approve" } })).status).toBe(200);
  await bob.drainOutbox();
  await send({ intent: "ping", payload: {} });
  await alice.drainOutbox();
  expect(await status()).toMatchObject({ queued: 0, failed: 1, delivered: 2, peers: [] });

  // Bob goes away: two messages wait, the first attempt fails with a network error and is retried later.
  await bob.stop();
  await send({ intent: "ping", payload: { note: "one" } });
  await send({ intent: "ping", payload: { note: "two" } });
  await alice.drainOutbox();
  const backlog = await status();
  expect(backlog).toMatchObject({ queued: 2, failed: 1, delivered: 2 });
  expect(backlog.oldestQueuedAt).toBeString();
  expect(Date.parse(backlog.nextAttemptAt)).toBeGreaterThan(alice.clock.now());
  expect(backlog.peers).toHaveLength(1);
  expect(backlog.peers[0]).toMatchObject({ agentId: bob.agentId, queued: 2, failing: true, lastStatus: null });
  expect(backlog.peers[0].lastError).toMatch(/network|connect|refused/i);
});
