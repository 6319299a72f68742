// Issue 21 "Rate limits that a stranger cannot turn against others", first bullet, from the
// attacker's side: requests forged in an agent's name (its `from`, someone else's signature) must
// not spend that agent's per-requester budget on listings, card queries and discovery queries.
// Before authentication only per-address limits apply; after it, the agent's own requests count.
import { describe, expect, test } from "bun:test";
import { formatTimestamp, signDiscoveryQuery, signTransport } from "../../src/ink/index.ts";
import { bootNetworkNode, bootTestApp, type TestNode } from "../helpers/boot.ts";
import { stopAfterEach } from "../helpers/cleanup.ts";
import { fakeAgent, LISTINGS_PATH, listingRequest } from "../helpers/discovery.ts";
import { freshNonce } from "../helpers/ink.ts";
import { personaKey, type PersonaName } from "../helpers/personas.ts";
import { json } from "../helpers/process.ts";

const keep = stopAfterEach();
const idOf = (p: PersonaName) => `svc:${personaKey(p, "signing").publicKeyMultibase}`;
const ip = (n: number) => `198.51.100.${n}`;

describe("forged requests do not spend the named agent's budget", () => {
  test("directory listing (10 a minute per requester): ten forgeries, then the agent's own request is listed", async () => {
    const dir = keep(await bootNetworkNode({ name: "dir", persona: "carol" }));
    const alice = keep(fakeAgent("alice", "alice"));
    for (let i = 0; i < 10; i++) {
      const forged = listingRequest(dir, { from: alice.agentId, cardUrl: alice.cardUrl, signer: "acme" });
      forged.headers["x-test-remote-address"] = ip(i);
      expect((await json(await dir.request(LISTINGS_PATH, forged))).code).toBe("signature_verification_failed");
    }
    expect((await dir.request(LISTINGS_PATH, listingRequest(dir, { from: alice.agentId, cardUrl: alice.cardUrl }))).status).toBe(200);
    // the agent's own requests still count against it
    for (let i = 0; i < 9; i++) expect((await dir.request(LISTINGS_PATH, listingRequest(dir, { from: alice.agentId, cardUrl: alice.cardUrl }))).status).toBe(200);
    expect((await json(await dir.request(LISTINGS_PATH, listingRequest(dir, { from: alice.agentId, cardUrl: alice.cardUrl })))).code).toBe("rate_limited");
  });

  test("directory listing: thirty forgeries from two addresses do not spend the agent's fetch budgets; its own request is listed", async () => {
    const dir = keep(await bootNetworkNode({ name: "dir", persona: "carol" }));
    const alice = keep(fakeAgent("alice", "alice"));
    const forge = (i: number, keyId?: string) => {
      const forged = listingRequest(dir, { from: alice.agentId, cardUrl: alice.cardUrl, signer: "acme" });
      forged.headers["x-test-remote-address"] = ip(i % 2);
      // a forger may also claim a key id the card lists (Mallory's signature under Alice's key id)
      if (keyId) forged.headers.authorization = forged.headers.authorization!.replace(/keyId=\S+/, `keyId=${keyId}`);
      return dir.request(LISTINGS_PATH, forged);
    };
    for (let i = 0; i < 30; i++) expect((await json(await forge(i, i % 3 === 0 ? "sig-alice-0" : undefined))).code).toBe("signature_verification_failed");
    expect(alice.state.hits).toBeLessThanOrEqual(3); // the card of a moment ago decides; a key it does not list is rechecked twice a minute
    const own = listingRequest(dir, { from: alice.agentId, cardUrl: alice.cardUrl });
    own.headers["x-test-remote-address"] = ip(0);
    expect((await dir.request(LISTINGS_PATH, own)).status).toBe(200);
  });

  test("agent-card query (30 a minute per requester): thirty forgeries, then the agent's own query is answered", async () => {
    const node: TestNode = bootTestApp();
    keep({ stop: () => node.close() });
    const query = (signer: PersonaName, n: number) => {
      const path = `/ink/v1/${node.agentId}/agent-card-query`;
      const body = { protocol: "ink/0.1", type: "network.svc.agent_card_query", from: idOf("bob"), to: node.agentId, nonce: freshNonce(), timestamp: formatTimestamp(node.clock.now()) };
      const key = personaKey(signer, "signing");
      const signed = signTransport({ method: "POST", path, recipientDid: node.agentId!, body, timestamp: body.timestamp }, key.privateKey, key.keyId);
      if (!signed.ok) throw new Error("sign");
      return node.request(path, { method: "POST", headers: { "content-type": "application/json", authorization: signed.authorization, "x-test-remote-address": ip(n) }, body: JSON.stringify(body) });
    };
    for (let i = 0; i < 30; i++) expect((await query("acme", i % 20)).status).toBe(401);
    expect((await query("bob", 99)).status).toBe(200);
    for (let i = 0; i < 29; i++) expect((await query("bob", 100 + (i % 20))).status).toBe(200);
    expect((await json(await query("bob", 99))).code).toBe("rate_limited");
  });

  test("discovery query (30 a minute per requester): thirty forgeries, then the agent's own query is answered", async () => {
    const node: TestNode = bootTestApp();
    keep({ stop: () => node.close() });
    const ask = (signer: PersonaName, n: number) => {
      const signed = signDiscoveryQuery({ from: idOf("bob"), to: node.agentId!, nonce: freshNonce(), timestamp: formatTimestamp(node.clock.now()), query: {} }, personaKey(signer, "signing").privateKey, "svc");
      if (!signed.ok) throw new Error(signed.issue);
      return node.request("/ink/v1/discovery/query", { method: "POST", headers: { "content-type": "application/json", "x-test-remote-address": ip(n) }, body: JSON.stringify(signed.envelope) });
    };
    for (let i = 0; i < 30; i++) expect((await json(await ask("acme", i % 20))).code).toBe("signature");
    expect((await ask("bob", 99)).status).toBe(200);
    for (let i = 0; i < 29; i++) expect((await ask("bob", 100 + (i % 20))).status).toBe(200);
    expect((await json(await ask("bob", 99))).code).toBe("rate_limited");
  });
});
