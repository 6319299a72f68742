// The SDK against the real node (in-process, through the app and its recorded contract check): the
// same client an extension author uses, over the node's actual /ext/v1 surface — renewal, signing,
// intents held for approval, the feed, a narrowed grant, the audit chain and uninstall.
import { afterEach, expect, test } from "bun:test";
import { decidePending } from "../../../src/domain/approvals/decide-pending.ts";
import { listPending } from "../../../src/domain/approvals/list-pending.ts";
import { bootNetworkPair, stopNodes, type NetworkNode } from "../../../test/helpers/boot.ts";
import { acmeKey, connectInInnerCircle, installAcme } from "../../../test/helpers/extensions.ts";
import { asOwner } from "../../../test/helpers/owner.ts";
import { AuthError, KithClient, PermissionError, memoryCursorStore, verifyToken } from "../src/index.ts";

let alice: NetworkNode;
let bob: NetworkNode;
afterEach(() => stopNodes(alice, bob));
const owner = { kind: "owner", subject: "owner" } as const;

test("an extension written with the SDK runs against a real node from install to uninstall", async () => {
  ({ alice, bob } = await bootNetworkPair());
  const contact = await connectInInnerCircle(alice, bob);
  await asOwner(alice, "/api/svc/policy", { method: "PUT", body: { maxAutonomyLevel: "full" } });
  const { installationId } = await installAcme(alice);

  // The node in-process: the SDK's fetch goes through the app (and the suite's contract check).
  const fetchThroughApp = ((url: URL, init: RequestInit) => alice.request(url.pathname + url.search, init)) as unknown as typeof fetch;
  const kith = new KithClient({ baseUrl: "https://alice.example.com", installationId, privateKey: acmeKey(0).secretKey, fetch: fetchThroughApp, now: () => alice.clock.now(), sleep: async () => {} });

  // No token given: the client renews with its key alone, then signs every call.
  const me = await kith.identity();
  expect(me.agentId).toBe(alice.agentId!);
  expect(kith.tokens.renewals).toBe(1);
  expect(await verifyToken(kith.tokens.current!, [me.publicKeyMultibase!])).toMatchObject({ installationId, ownerTulpaId: alice.agentId });
  const list = await kith.connections.list({ limit: 10 });
  expect(list.connections.map((c) => c.contactId)).toEqual([contact.id]);
  expect((await kith.layers.list()).assignments[0]).toMatchObject({ contactId: contact.id, layer: "inner" });

  const events = memoryCursorStore();
  for await (const _ of kith.events.stream({ cursorStore: events, untilIdle: true })) throw new Error("from now: no events");
  expect(events.cursor?.streamId).toMatch(/^st_/);

  const ping = await kith.intents.send({ to: contact.id, intent: "ping", payload: { note: "Long time no see" } });
  expect(ping.status).toBe("queued");
  const ask = await kith.intents.send({ to: contact.id, intent: "ask", payload: { question: "Coffee next week?" } });
  expect(ask.status).toBe("pending_approval");
  const pending = listPending(alice.ctx(owner), {}).items.find((p) => p.id === ask.approvalId || JSON.stringify(p).includes(String(ask.approvalId)));
  expect(pending).toBeDefined();
  decidePending(alice.ctx(owner), pending!.id, { decision: "approve" });
  const kinds: string[] = [];
  for await (const e of kith.events.stream({ cursorStore: events, untilIdle: true })) kinds.push(e.kind);
  expect(kinds).toContain("approval.resolved");

  // The owner narrows the grant: the old token is revoked, the client renews once and goes on.
  const narrowed = await asOwner(alice, `/api/svc/extensions/${installationId}/permissions`, { method: "PUT", body: { permissions: ["connections:list", "layers:read"], layers: ["inner"], maxAutonomyTier: "transactional" } });
  expect(narrowed.status).toBe(200);
  expect((await kith.connections.list()).total).toBe(1);
  expect(kith.tokens.renewals).toBe(2);
  const denied = await kith.events.list().catch((e) => e);
  expect([denied instanceof PermissionError, denied.required]).toEqual([true, "events:subscribe"]);

  const chain = await kith.audit.verifyChain();
  expect(chain.ok).toBe(true);
  expect(chain.ok && chain.count).toBeGreaterThan(5);

  await asOwner(alice, `/api/svc/extensions/${installationId}`, { method: "DELETE" });
  const gone = await kith.identity().catch((e) => e);
  expect([gone instanceof AuthError, gone.status, gone.code]).toEqual([true, 401, "installation_inactive"]);
});
