import { afterEach, beforeEach, expect, test } from "bun:test";
import { formatTimestamp, signTransport } from "../../src/ink/index.ts";
import { bootNetworkPair, stopNodes, type NetworkNode } from "../helpers/boot.ts";
import { acmeManifest } from "../helpers/extensions.ts";
import { freshNonce } from "../helpers/ink.ts";
import { asOwner } from "../helpers/owner.ts";
import { personaKey } from "../helpers/personas.ts";

// alice runs a community marketplace; bob's agent rates from its own node.
let alice: NetworkNode;
let bob: NetworkNode;
const ID = "com.acme.keepintouch";
beforeEach(async () => {
  ({ alice, bob } = await bootNetworkPair());
  await asOwner(alice, "/api/svc/marketplace/settings", { method: "PUT", body: { autoApprove: true } });
  await asOwner(alice, "/marketplace/submit", { body: { manifest: acmeManifest() } });
});
afterEach(() => stopNodes(alice, bob));

function review(overrides: Record<string, unknown> = {}, options: { sign?: boolean; path?: string; signer?: "bob" | "carol" } = {}) {
  const path = options.path ?? `/marketplace/extensions/${ID}/reviews`;
  const body = { protocol: "ink/0.1", type: "network.svc.marketplace_review", from: bob.agentId, to: alice.agentId, nonce: freshNonce(), timestamp: formatTimestamp(alice.clock.now()), extensionId: ID, rating: 5, ...overrides };
  const signer = options.signer ?? "bob";
  const signed = signTransport({ method: "POST", path, recipientDid: alice.agentId!, body, timestamp: body.timestamp as string }, personaKey(signer, "signing").privateKey, `sig-${signer}-0`);
  if (!signed.ok) throw new Error("sign");
  const headers: Record<string, string> = { "content-type": "application/json" };
  if (options.sign !== false) headers.authorization = signed.authorization;
  return { path, init: { method: "POST", headers, body: JSON.stringify(body) } };
}

const send = async (r: ReturnType<typeof review>) => {
  const res = await alice.request(r.path, r.init);
  return [res.status, (await res.json()) as any] as const;
};

test("another node's agent rates once, as itself; its vote shows in the stats", async () => {
  const [status, body] = await send(review({ comment: "Works well" }));
  expect([status, body.reviewer, body.reviewStats.count, body.reviewStats.average]).toEqual([201, bob.agentId, 1, 5]);
  const [again, second] = await send(review({ rating: 1 }));
  expect([again, second.error]).toEqual([409, "already_reviewed"]);
  const details = (await (await alice.request(`/marketplace/extensions/${ID}`)).json()) as any;
  expect(details.reviewStats).toEqual({ count: 1, average: 5, distribution: { "1": 0, "2": 0, "3": 0, "4": 0, "5": 1 } });
});

test("nobody rates as someone else: unsigned, signed by another key, replayed, or a body that is not a review are refused", async () => {
  expect((await send(review({}, { sign: false })))[0]).toBe(401);
  expect((await send(review({}, { signer: "carol" })))[0]).toBe(401);
  const once = review();
  expect((await send(once))[0]).toBe(201);
  const [replayed, replayBody] = await send(once);
  expect([replayed, replayBody.error]).toEqual([409, "nonce_replay"]);
  for (const bad of [{ rating: 6 }, { rating: "5" }, { extra: true }, { type: "network.svc.agent_card_query" }]) expect((await send(review(bad)))[0]).toBe(400);
  const [mismatch, mm] = await send(review({ extensionId: "com.acme.other" }));
  expect([mismatch, mm.error]).toEqual([400, "invalid_input"]);
  expect((await send(review({ extensionId: "com.acme.nothing" }, { path: "/marketplace/extensions/com.acme.nothing/reviews" })))[0]).toBe(404);
});
