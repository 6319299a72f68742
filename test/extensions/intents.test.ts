import { afterEach, describe, expect, test } from "bun:test";
import { and, eq } from "drizzle-orm";
import { messages } from "../../src/db/schema/index.ts";
import { bootNetworkPair, stopNodes, type NetworkNode } from "../helpers/boot.ts";
import { acmeManifest, connectInInnerCircle, extRequest, installAcme, renewToken } from "../helpers/extensions.ts";
import { asOwner } from "../helpers/owner.ts";
import { pruneIdempotencyKeys } from "../../src/domain/extensions/prune-idempotency-keys.ts";

let alice: NetworkNode;
let bob: NetworkNode;
afterEach(() => stopNodes(alice, bob));

/** Alice and Bob connected; Bob is in Alice's inner layer; acme installed on Alice's node. */
async function setUp(options: { policy?: string; grant?: Record<string, unknown>; manifest?: Record<string, unknown> } = {}) {
  ({ alice, bob } = await bootNetworkPair());
  const contact = await connectInInnerCircle(alice, bob);
  if (options.policy) expect((await asOwner(alice, "/api/svc/policy", { method: "PUT", body: { maxAutonomyLevel: options.policy } })).status).toBe(200);
  const installed = await installAcme(alice, options);
  return { ...installed, contactId: contact.id };
}

function bobsCopy(intent: string): Record<string, any> {
  const row = bob.db.select().from(messages).where(and(eq(messages.direction, "in"), eq(messages.intent, intent))).get();
  return JSON.parse(row!.envelopeJson!);
}

describe("POST /ext/v1/intents", () => {
  test("a transactional intent within the tier and a `full` policy goes out on its own, with provenance naming the extension", async () => {
    const { token, contactId, installationId } = await setUp({ policy: "full" });
    const res = await extRequest(alice, token, "POST", "/ext/v1/intents", { body: { to: contactId, intent: "ping", payload: { note: "Long time no see" } } });
    expect([res.status, ((await res.json()) as { status: string }).status]).toEqual([200, "queued"]);
    expect(await alice.drainOutbox()).toBe(1);
    expect(bobsCopy("ping").provenance).toEqual({ origin: "agent_autonomous", extensionId: "com.acme.keepintouch", installationId });
  });

  test("above the token's tier: 202 pending_approval; the owner approves; it is delivered as agent_approved; the feed says so", async () => {
    const { token, contactId, installationId } = await setUp({ policy: "full" });
    const since = ((await (await extRequest(alice, token, "GET", "/ext/v1/events")).json()) as { nextSince: number }).nextSince;
    const res = await extRequest(alice, token, "POST", "/ext/v1/intents", { body: { to: bob.agentId, intent: "ask", payload: { question: "Coffee next week?" } } });
    const held = (await res.json()) as { status: string; approvalId: string; intentId: string };
    expect([res.status, held.status]).toEqual([202, "pending_approval"]);
    expect(await alice.drainOutbox()).toBe(0);
    const pending = await asOwner(alice, `/api/svc/pending/${held.approvalId}`);
    expect(pending.status).toBe(200);
    expect((await asOwner(alice, `/api/svc/pending/${held.approvalId}`, { body: { decision: "approve" } })).status).toBe(200);
    expect(await alice.drainOutbox()).toBe(1);
    expect(bobsCopy("ask").provenance).toEqual({ origin: "agent_approved", extensionId: "com.acme.keepintouch", installationId });
    const feed = (await (await extRequest(alice, token, "GET", `/ext/v1/events?since=${since}`)).json()) as { events: Array<{ kind: string; data: Record<string, unknown> }> };
    expect(feed.events.map((e) => [e.kind, e.data.status ?? e.data.outcome])).toEqual([
      ["intent.status_changed", "pending_approval"],
      ["approval.resolved", "approved"],
      ["intent.status_changed", "delivered"],
    ]);
  });

  test("under the default policy (draft_only) even a ping waits for the owner", async () => {
    const { token, contactId } = await setUp();
    const res = await extRequest(alice, token, "POST", "/ext/v1/intents", { body: { to: contactId, intent: "ping", payload: {} } });
    expect([res.status, ((await res.json()) as { status: string }).status]).toEqual([202, "pending_approval"]);
  });

  test("refusals: undeclared intent 403, permission 403, contact outside the grant 404, bad payload 400", async () => {
    const { token, contactId } = await setUp({ policy: "full", manifest: acmeManifest({ intents: ["ping", "ask", "opportunity", "context_share"] }) });
    const send = (body: unknown, t = token) => extRequest(alice, t, "POST", "/ext/v1/intents", { body });
    const undeclared = await send({ to: contactId, intent: "follow_up", payload: { referenceId: "x", message: "hi" } });
    expect([undeclared.status, ((await undeclared.json()) as { error: string }).error]).toEqual([403, "intent_not_declared"]);
    expect((await send({ to: "con_nobody", intent: "ping", payload: {} })).status).toBe(404);
    expect((await send({ to: contactId, intent: "ping", payload: { note: 5 } })).status).toBe(400);
    expect((await send({ to: contactId, intent: "ping" })).status).toBe(400);
    expect((await send("not an object")).status).toBe(400);
    const raw = await alice.request("/ext/v1/intents", { method: "POST", headers: { "content-type": "application/json", authorization: `Bearer ${token}` }, body: "{" });
    expect(raw.status).toBe(401); // a body is only read as JSON after the checks pass
    await asOwner(alice, `/api/svc/connections/${contactId}`, { method: "PATCH", body: { layer: "known" } });
    expect((await send({ to: contactId, intent: "ping", payload: {} })).status).toBe(404);
    const narrow = await installAcme(alice, { manifest: acmeManifest({ id: "com.acme.narrow" }), grant: { permissions: ["connections:list"], layers: ["inner"] } });
    const denied = await send({ to: contactId, intent: "ping", payload: {} }, narrow.token);
    expect([denied.status, await denied.json()]).toEqual([403, { error: "permission_missing", message: expect.any(String), required: "intents:send" }]);
  });

  test("Idempotency-Key: a retry answers the first answer and sends nothing more; another body with the key is 422; after 24 h the key is pruned and sends again", async () => {
    const { token, contactId, installationId } = await setUp({ policy: "full" });
    const body = { to: contactId, intent: "ping", payload: { note: "once" } };
    const first = await extRequest(alice, token, "POST", "/ext/v1/intents", { body, headers: { "idempotency-key": "k-1" } });
    const again = await extRequest(alice, token, "POST", "/ext/v1/intents", { body, headers: { "idempotency-key": "k-1" } });
    const firstAnswer = (await first.json()) as { intentId: string };
    expect(await again.json()).toEqual(firstAnswer);
    expect(await alice.drainOutbox()).toBe(1);
    const other = await extRequest(alice, token, "POST", "/ext/v1/intents", { body: { ...body, payload: { note: "twice" } }, headers: { "idempotency-key": "k-1" } });
    expect([other.status, ((await other.json()) as { error: string }).error]).toEqual([422, "idempotency_key_reused"]);
    expect((await extRequest(alice, token, "POST", "/ext/v1/intents", { body, headers: { "idempotency-key": "bad key!" } })).status).toBe(400);
    // after 24 h the key is forgotten (and pruned): the same key sends again
    alice.clock.advance(24 * 3600_000 + 1);
    expect(pruneIdempotencyKeys(alice.ctx())).toBe(1);
    const renewed = await renewToken(alice, installationId);
    const later = await extRequest(alice, renewed, "POST", "/ext/v1/intents", { body, headers: { "idempotency-key": "k-1" } });
    expect(((await later.json()) as { intentId: string }).intentId).not.toBe(firstAnswer.intentId);
  });
});
