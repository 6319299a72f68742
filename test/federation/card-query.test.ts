import { afterEach, beforeEach, expect, test } from "bun:test";
import { connections } from "../../src/db/schema/index.ts";
import { formatTimestamp, signTransport, validateAgentCard, verifyAgentCardProof } from "../../src/ink/index.ts";
import { bootNetworkPair, stopNodes, type NetworkNode } from "../helpers/boot.ts";
import { freshNonce } from "../helpers/ink.ts";
import { personaKey } from "../helpers/personas.ts";
import { json } from "../helpers/process.ts";

let alice: NetworkNode;
let bob: NetworkNode;
beforeEach(async () => void ({ alice, bob } = await bootNetworkPair()));
afterEach(() => stopNodes(alice, bob));

function query(overrides: Record<string, unknown> = {}, options: { sign?: boolean } = {}) {
  const path = `/ink/v1/${alice.agentId}/agent-card-query`;
  const body = { protocol: "ink/0.1", type: "network.svc.agent_card_query", from: bob.agentId, to: alice.agentId, nonce: freshNonce(), timestamp: formatTimestamp(alice.clock.now()), ...overrides };
  const signed = signTransport({ method: "POST", path, recipientDid: alice.agentId!, body, timestamp: body.timestamp }, personaKey("bob", "signing").privateKey, "sig-bob-0");
  if (!signed.ok) throw new Error("sign");
  const headers: Record<string, string> = { "content-type": "application/json" };
  if (options.sign !== false) headers.authorization = signed.authorization;
  return { path, init: { method: "POST", headers, body: JSON.stringify(body) } };
}

test("a signed query gets the card; strangers the public scope, connections the connected scope", async () => {
  const q = query();
  const res = await alice.request(q.path, q.init);
  expect(res.status).toBe(200);
  expect(res.headers.get("ink-card-scope")).toBe("public");
  const card = await json(res);
  expect(validateAgentCard(card).ok).toBe(true);
  expect(card.agentId).toBe(alice.agentId);
  expect(card.profileSnapshot).toMatchObject({ skills: [], interests: [], openTo: [] });
  // The snapshot differs per scope, so the answer is signed as answered (INK §13).
  expect(verifyAgentCardProof(card)).toMatchObject({ ok: true, kind: "signed", keyId: "sig-alice-0" });

  alice.db.insert(connections).values({ id: "c", principal: `key:${bob.agentId!.slice(4)}`, agentId: bob.agentId, cardUrl: bob.cardUrl, status: "connected", initiatedBy: "us", createdAt: 0, updatedAt: 0 }).run();
  const again = query();
  const connected = await alice.request(again.path, again.init);
  expect(connected.status).toBe(200);
  expect(connected.headers.get("ink-card-scope")).toBe("connected");
  expect(verifyAgentCardProof(await json(connected))).toMatchObject({ ok: true, kind: "signed" });
});

test("401 unsigned or forged, 409 replayed, 400 wrong type, 404 another agent id", async () => {
  const unsigned = query({}, { sign: false });
  expect((await alice.request(unsigned.path, unsigned.init)).status).toBe(401);
  const forged = query();
  const tampered = { ...forged.init, body: forged.init.body.replace('"ink/0.1"', '"ink/0.1" ').replace(bob.agentId!, bob.agentId!) };
  const body = JSON.parse(forged.init.body);
  body.nonce = freshNonce();
  expect((await alice.request(forged.path, { ...tampered, body: JSON.stringify(body) })).status).toBe(401);
  const once = query();
  expect((await alice.request(once.path, once.init)).status).toBe(200);
  const replay = await alice.request(once.path, once.init);
  expect(replay.status).toBe(409);
  expect((await json(replay)).code).toBe("nonce_replay");
  const wrongType = query({ type: "network.svc.discovery_query" });
  expect((await alice.request(wrongType.path, wrongType.init)).status).toBe(400);
  const other = query();
  expect((await alice.request(`/ink/v1/${encodeURIComponent(bob.agentId!)}/agent-card-query`, other.init)).status).toBe(404);
});
