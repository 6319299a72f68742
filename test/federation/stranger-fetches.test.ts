// Issue 21 "Fetches a stranger can trigger", from the attacker's side through the real HTTP
// surface: every fetch an unauthenticated request can cause is bounded (cheap checks first, a
// negative cache, per-host / per-source / global budgets), and the state strangers create expires.
import { describe, expect, test } from "bun:test";
import { peerCards } from "../../src/db/schema/index.ts";
import { deriveAgentId, formatTimestamp, generateEd25519KeyPair, signDiscoveryQuery } from "../../src/ink/index.ts";
import { bootNetworkNode } from "../helpers/boot.ts";
import { stopAfterEach } from "../helpers/cleanup.ts";
import { fakeAgent, LISTINGS_PATH, listingRequest } from "../helpers/discovery.ts";
import { freshNonce, postIntent, signedIntent } from "../helpers/ink.ts";
import { personaKey } from "../helpers/personas.ts";
import { json } from "../helpers/process.ts";
import { testTls } from "../helpers/tls.ts";

const keep = stopAfterEach();

/** A host the attacker points the node at: answers 404 to everything and counts what it was asked. */
function target() {
  const hits: string[] = [];
  const server = Bun.serve({ port: 0, hostname: "127.0.0.1", tls: testTls(), fetch: (req) => (hits.push(new URL(req.url).pathname), new Response("no", { status: 404 })) });
  keep({ stop: () => server.stop(true) });
  return { hits, port: server.port! };
}
const madeUpId = (n: number) => deriveAgentId(generateEd25519KeyPair(new Uint8Array(32).fill(n)).publicKey, "svc");
const ip = (n: number) => ({ "x-test-remote-address": `198.51.100.${n}` });

describe("did:web senders with no stored card", () => {
  test("are not fetched again on every request, and made-up ids leave no peer card", async () => {
    const bob = keep(await bootNetworkNode({ name: "bob" }));
    const host = target();
    const did = (n: number) => `did:web:ghost${n}.kith.test%3A${host.port}`;
    for (let i = 0; i < 10; i++) {
      const res = await postIntent(bob, signedIntent("acme", bob, { from: did(1), intent: "ping", payload: {} }), { headers: ip(1) });
      expect((await json(res)).code).toBe("unresolvable_sender_key");
    }
    expect(host.hits).toEqual(["/.well-known/did.json", `/ink/v1/${encodeURIComponent(did(1))}/agent.json`]); // once, not ten times
    for (let n = 2; n <= 6; n++) await postIntent(bob, signedIntent("acme", bob, { from: did(n), intent: "ping", payload: {} }), { headers: ip(n) });
    expect(bob.db.select().from(peerCards).all()).toEqual([]);
  });
});

describe("did:web senders with a valid card that are refused", () => {
  test("are not fetched again on every request either: what was learned is kept (and expires with the stranger's other state)", async () => {
    const bob = keep(await bootNetworkNode({ name: "bob" }));
    const key = personaKey("carol", "signing");
    const hits: string[] = [];
    let did = "";
    const server: ReturnType<typeof Bun.serve> = Bun.serve({
      port: 0,
      hostname: "127.0.0.1",
      tls: testTls(),
      fetch(req): Response {
        const path = new URL(req.url).pathname;
        hits.push(path);
        if (path !== `/ink/v1/${encodeURIComponent(did)}/agent.json`) return new Response("no", { status: 404 });
        return Response.json({
          protocol: "ink/0.1", agentId: did, handle: "dee", displayName: "Dee", endpoint: `https://dee.kith.test:${server.port}/inbox`, publicKeyMultibase: key.publicKeyMultibase,
          capabilities: { intentsAccepted: ["ping"], intentsSent: ["ping"] }, availability: { timezone: "UTC" },
        });
      },
    });
    keep({ stop: () => server.stop(true) });
    did = `did:web:dee.kith.test%3A${server.port}`;
    for (let i = 0; i < 5; i++) {
      const res = await postIntent(bob, signedIntent("carol", bob, { from: did, intent: "ping", payload: {} }), { headers: ip(1) });
      expect((await json(res)).code).toBe("not_connected");
    }
    expect(hits).toEqual(["/.well-known/did.json", `/ink/v1/${encodeURIComponent(did)}/agent.json`]);
  });
});

describe("directory listings", () => {
  test("card URLs on one host are fetched at most 30 times a minute however many addresses ask; a failing URL once per 5 minutes", async () => {
    const dir = keep(await bootNetworkNode({ name: "dir", persona: "carol" }));
    const host = target();
    const urlOf = (id: string) => `https://victim.kith.test:${host.port}/ink/v1/${encodeURIComponent(id)}/agent.json`;
    for (let i = 0; i < 40; i++) {
      const id = madeUpId(i + 1);
      const req = listingRequest(dir, { from: id, cardUrl: urlOf(id), signer: "acme" });
      req.headers["x-test-remote-address"] = `203.0.113.${i + 1}`;
      expect((await dir.request(LISTINGS_PATH, req)).status).not.toBe(200);
    }
    expect(host.hits.length).toBe(30);

    dir.clock.advance(61_000); // a new minute: budgets refill, the negative cache still holds
    const id = madeUpId(99);
    for (let i = 0; i < 5; i++) {
      const req = listingRequest(dir, { from: id, cardUrl: urlOf(id), signer: "acme" });
      req.headers["x-test-remote-address"] = `192.0.2.${i + 100}`;
      await dir.request(LISTINGS_PATH, req);
    }
    expect(host.hits.length).toBe(31);
  });

  test("copies of one listing request sent at once cost one fetch; the copies are replays", async () => {
    const dir = keep(await bootNetworkNode({ name: "dir", persona: "carol" }));
    const agent = keep(fakeAgent("lister", "alice"));
    const req = listingRequest(dir, { from: agent.agentId, cardUrl: agent.cardUrl });
    const answers = await Promise.all(Array.from({ length: 5 }, () => dir.request(LISTINGS_PATH, req)));
    expect(answers.map((r) => r.status).sort()).toEqual([200, 409, 409, 409, 409]);
    expect(agent.state.hits).toBe(1);
  });

  test("a listing's card URL with a query is refused before any fetch", async () => {
    const dir = keep(await bootNetworkNode({ name: "dir", persona: "carol" }));
    const agent = keep(fakeAgent("lister", "alice"));
    const res = await dir.request(LISTINGS_PATH, listingRequest(dir, { from: agent.agentId, cardUrl: `${agent.cardUrl}?x=1` }));
    expect((await json(res)).code).toBe("card_url_mismatch");
    expect(agent.state.hits).toBe(0);
  });

  test("a replayed listing request costs no fetch", async () => {
    const dir = keep(await bootNetworkNode({ name: "dir", persona: "carol" }));
    const agent = keep(fakeAgent("lister", "alice"));
    const req = listingRequest(dir, { from: agent.agentId, cardUrl: agent.cardUrl });
    expect((await dir.request(LISTINGS_PATH, req)).status).toBe(200);
    expect(agent.state.hits).toBe(1);
    for (let i = 0; i < 3; i++) expect((await json(await dir.request(LISTINGS_PATH, req))).code).toBe("nonce_replay");
    expect(agent.state.hits).toBe(1);
  });
});

describe("discovery queries", () => {
  test("a query that fails a check needing no key makes no fetch (shape first; audience, freshness, replay before any fetch)", async () => {
    const dir = keep(await bootNetworkNode({ name: "dir", persona: "carol" }));
    const host = target();
    const from = `did:web:asker.kith.test%3A${host.port}`;
    const key = personaKey("acme", "signing");
    const query = (over: { to?: string; timestamp?: number; nonce?: string } = {}) => {
      const signed = signDiscoveryQuery({ from, to: over.to ?? dir.agentId!, nonce: over.nonce ?? freshNonce(), timestamp: formatTimestamp(over.timestamp ?? dir.clock.now()), query: { tags: ["rust"] } }, key.privateKey, "svc");
      if (!signed.ok) throw new Error(signed.issue);
      return signed.envelope as unknown as Record<string, unknown>;
    };
    const ask = (body: unknown) => dir.request("/ink/v1/discovery/query", { method: "POST", headers: { "content-type": "application/json", ...ip(7) }, body: JSON.stringify(body) });
    const { signature: _s, ...unsigned } = query();
    expect((await json(await ask(unsigned))).code).toBe("schema");
    expect((await json(await ask({ ...query(), extra: 1 }))).code).toBe("schema");
    expect((await ask(query({ to: "svc:z6MkSomeoneElse" }))).status).toBe(401); // the signature cannot verify without the card
    expect((await ask(query({ timestamp: dir.clock.now() - 600_000 }))).status).toBe(401);
    expect(host.hits).toEqual([]);
    expect((await ask(query())).status).toBe(401); // well-formed and fresh: the requester's did:web is looked up
    expect(host.hits.length).toBe(2);
  });
});
