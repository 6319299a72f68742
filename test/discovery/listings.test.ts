import { afterEach, describe, expect, test } from "bun:test";
import { directoryListings } from "../../src/db/schema/index.ts";
import { bootNetworkNode, type TestNode } from "../helpers/boot.ts";
import { testClock } from "../helpers/clock.ts";
import { drainPushes, fakeAgent, LISTINGS_PATH, listingRequest, type FakeMode } from "../helpers/discovery.ts";
import { asOwner } from "../helpers/owner.ts";
import { rotateSigningKey } from "../../src/domain/identity/rotate-signing-key.ts";
import { bootTestApp } from "../helpers/boot.ts";
import { personaKey } from "../helpers/personas.ts";
import { json } from "../helpers/process.ts";

type Net = TestNode & { url: string; stop(): Promise<void> };
let nodes: Net[] = [];
let fakes: Array<{ stop(): unknown }> = [];
afterEach(async () => {
  await Promise.all(nodes.map((n) => n.stop()));
  for (const f of fakes) f.stop();
  nodes = [];
  fakes = [];
});

/** D is the directory (carol's keys); A (alice) publishes to D. */
async function network() {
  const clock = testClock();
  const dir = await bootNetworkNode({ name: "dir", persona: "carol", clock });
  const alice = await bootNetworkNode({ name: "alice", clock, discovery: { directories: [dir.url] } });
  nodes.push(dir, alice);
  return { dir, alice, clock };
}
const post = (node: TestNode, init: RequestInit, path = LISTINGS_PATH) => node.request(path, init);
const searchHandles = async (node: TestNode, q: string) => ((await json(await node.request(`/discover?q=${encodeURIComponent(q)}`))).results as Array<{ handle: string }>).map((r) => r.handle);

describe("directory listings between nodes", () => {
  test("publish pushes a signed listing request; the directory fetches the card, indexes it, answers listed; unpublish delists", async () => {
    const { dir, alice } = await network();
    expect((await asOwner(alice, "/api/svc/discovery/publish", { body: { tags: ["rust", "climbing"], location: "Berlin", roles: ["engineer"] } })).status).toBe(200);
    expect(await drainPushes(alice)).toEqual([{ kind: "delivered", status: 200, remoteStatus: "listed" }]);

    const state = await json(await asOwner(alice, "/api/svc/discovery"));
    expect(state.directories).toEqual([
      { directory: dir.url, action: "publish", state: "delivered", attempts: 1, nextAttemptAt: null, lastAttemptAt: expect.any(String), lastStatus: 200, lastError: null, deliveredAt: expect.any(String), remoteStatus: "listed" },
    ]);
    const [hit] = (await json(await dir.request("/discover?q=ali&skills=rust&roles=engineer&location=berlin"))).results;
    expect(hit).toMatchObject({ agentId: alice.agentId, handle: "alice", displayName: "Alice Example", tags: ["rust", "climbing"], cardUrl: alice.cardUrl, source: "remote", location: "Berlin", roles: ["engineer"] });
    expect(await json(await dir.request("/alice"))).toEqual({ found: true, agentId: alice.agentId, handle: "alice" });
    const row = dir.db.select().from(directoryListings).all()[0]!;
    expect(row).toMatchObject({ source: "remote", status: "listed", nextValidationAt: dir.clock.now() + dir.discovery.revalidateMs, failures: 0 });
    // the directory serves only its own card
    expect((await dir.request(`/ink/v1/${encodeURIComponent(alice.agentId!)}/agent.json`)).status).toBe(404);

    await asOwner(alice, "/api/svc/discovery/unpublish", { method: "POST" });
    expect(await drainPushes(alice)).toEqual([{ kind: "delivered", status: 200, remoteStatus: "delisted" }]);
    expect(await searchHandles(dir, "alice")).toEqual([]);
    expect(await json(await dir.request("/alice"))).toEqual({ found: false, agentId: null, handle: "alice" });
    expect(dir.db.select().from(directoryListings).all()[0]).toMatchObject({ status: "delisted" });
  });

  test("the signed request itself: 200 with the listing state; unpublish of an agent not listed is a 200 too", async () => {
    const { dir, alice } = await network();
    await asOwner(alice, "/api/svc/discovery/publish", { method: "POST" });
    const res = await post(dir, listingRequest(dir, { from: alice.agentId!, cardUrl: alice.cardUrl! }));
    expect(res.status).toBe(200);
    expect(await json(res)).toEqual({ status: "listed", agentId: alice.agentId, handle: "alice", listedAt: new Date(dir.clock.now()).toISOString(), nextValidationAt: new Date(dir.clock.now() + dir.discovery.revalidateMs).toISOString() });
    const neutral = await post(dir, listingRequest(dir, { from: alice.agentId!, cardUrl: alice.cardUrl!, action: "unpublish", body: { type: "network.ink.directory_listing" } }));
    expect(await json(neutral)).toMatchObject({ status: "delisted", listedAt: null });
    const again = await post(dir, listingRequest(dir, { from: alice.agentId!, cardUrl: alice.cardUrl!, action: "unpublish" }));
    expect(again.status).toBe(200);
    expect(await json(again)).toMatchObject({ status: "delisted" });
  });
});

describe("listing rejections (one per reason, INK error body)", () => {
  const expectError = async (res: Response, status: number, code: string) => {
    const body = await json(res);
    expect({ status: res.status, code: body.code }).toEqual({ status, code });
    expect({ error: body.error, protocol: body.protocol, message: typeof body.message }).toEqual({ error: code, protocol: "ink/0.1", message: "string" });
    return body;
  };

  test("authentication: unsigned 401, bad header 401, a key the card does not list 401, expired 401, replay 409", async () => {
    const { dir, alice } = await network();
    await asOwner(alice, "/api/svc/discovery/publish", { method: "POST" });
    await expectError(await post(dir, listingRequest(dir, { from: alice.agentId!, cardUrl: alice.cardUrl!, signer: null })), 401, "missing_authorization");
    const badHeader = listingRequest(dir, { from: alice.agentId!, cardUrl: alice.cardUrl! });
    badHeader.headers.authorization = "INK-Ed25519 nope";
    await expectError(await post(dir, badHeader), 401, "invalid_auth_scheme");
    await expectError(await post(dir, listingRequest(dir, { from: alice.agentId!, cardUrl: alice.cardUrl!, signer: "bob" })), 401, "signature_verification_failed");
    await expectError(await post(dir, listingRequest(dir, { from: alice.agentId!, cardUrl: alice.cardUrl!, timestamp: dir.clock.now() - 301_000 })), 401, "timestamp_expired");
    await expectError(await post(dir, listingRequest(dir, { from: alice.agentId!, cardUrl: alice.cardUrl!, timestamp: dir.clock.now() + 31_000 })), 401, "timestamp_too_far_future");
    const once = listingRequest(dir, { from: alice.agentId!, cardUrl: alice.cardUrl! });
    expect((await post(dir, once)).status).toBe(200);
    await expectError(await post(dir, once), 409, "nonce_replay");
  });

  test("shape: wrong type, another recipient, bad action, extra member, missing to, non-https card URL (400); wrong media type 415; too large 413", async () => {
    const { dir, alice } = await network();
    const req = (body: Record<string, unknown>) => listingRequest(dir, { from: alice.agentId!, cardUrl: alice.cardUrl!, body });
    await expectError(await post(dir, req({ type: "network.svc.agent_card_query" })), 400, "invalid_envelope");
    await expectError(await post(dir, req({ to: alice.agentId })), 400, "recipient_mismatch");
    await expectError(await post(dir, req({ action: "delete" })), 400, "invalid_listing");
    await expectError(await post(dir, req({ extra: 1 })), 400, "invalid_listing");
    await expectError(await post(dir, req({ to: undefined })), 400, "invalid_listing");
    await expectError(await post(dir, req({ cardUrl: alice.cardUrl!.replace("https:", "http:") })), 400, "invalid_listing");
    await expectError(await post(dir, req({ protocol: "ink/0.2" })), 400, "unsupported_protocol_version");
    const text = listingRequest(dir, { from: alice.agentId!, cardUrl: alice.cardUrl! });
    text.headers["content-type"] = "text/plain";
    await expectError(await post(dir, text), 415, "unsupported_media_type");
    const big = listingRequest(dir, { from: alice.agentId!, cardUrl: alice.cardUrl!, body: { pad: "x".repeat(70_000) } });
    await expectError(await post(dir, big), 413, "body_too_large");
  });

  test("card URL and identity: another agent's URL or did:web elsewhere 400, unsupported principal 400; every problem with the card itself is one generic 401", async () => {
    const { dir, alice } = await network();
    await asOwner(alice, "/api/svc/discovery/publish", { method: "POST" });
    const bobCardUrl = alice.cardUrl!.replace(encodeURIComponent(alice.agentId!), encodeURIComponent(`svc:${personaKey("bob", "signing").publicKeyMultibase}`));
    await expectError(await post(dir, listingRequest(dir, { from: alice.agentId!, cardUrl: bobCardUrl })), 400, "card_url_mismatch");
    await expectError(await post(dir, listingRequest(dir, { from: alice.agentId!, cardUrl: "https://alice.kith.test/agent.json" })), 400, "card_url_mismatch");
    await expectError(await post(dir, listingRequest(dir, { from: "did:web:alice.kith.test", cardUrl: `https://evil.kith.test/ink/v1/${encodeURIComponent("did:web:alice.kith.test")}/agent.json` })), 400, "card_url_mismatch");
    await expectError(await post(dir, listingRequest(dir, { from: "did:plc:abc123", cardUrl: `https://alice.kith.test/ink/v1/${encodeURIComponent("did:plc:abc123")}/agent.json` })), 400, "unsupported_principal");

    // INK §12: the requester never learns what happened when the directory fetched its URL
    const mallory = fakeAgent("mallory", "alice");
    const impostor = fakeAgent("impostor", "alice", { extraKeys: ["bob"] });
    impostor.state.mode = "unbound";
    fakes.push(mallory, impostor);
    const answers: string[] = [];
    const answer = async (cardUrl: string, mode?: FakeMode) => {
      if (mode) mallory.state.mode = mode;
      const res = await post(dir, listingRequest(dir, { from: alice.agentId!, cardUrl, signer: "alice" }));
      answers.push(`${res.status} ${JSON.stringify(await json(res))}`);
    };
    const malloryUrl = mallory.cardUrl;
    await answer(`${dir.url}/ink/v1/${encodeURIComponent(alice.agentId!)}/agent.json`); // 404 at the directory's own host
    await answer(`https://gone.kith.test:1/ink/v1/${encodeURIComponent(alice.agentId!)}/agent.json`); // unreachable
    for (const mode of ["503", "text", "invalid", "other-agent"] as const) await answer(malloryUrl.replace("mallory.", `mallory-${mode}.`), mode);
    await answer(impostor.cardUrl); // not bound to the id (lists only bob's key)
    expect(new Set(answers).size).toBe(1);
    expect(answers[0]).toBe(`401 ${JSON.stringify({ error: "unresolvable_sender_key", code: "unresolvable_sender_key", protocol: "ink/0.1", message: "the sender's keys could not be resolved" })}`);
    expect(answers[0]).not.toMatch(/HTTP|404|503|gone|blocked|resolves/);
    expect(dir.db.select().from(directoryListings).all()).toEqual([]);
    // the details are in the directory's log
    expect(dir.logLines.filter((l) => l.msg === "listing card not usable").map((l) => l.reason)).toEqual(["status", "network_error", "status", "content_type", "invalid_card", "agent_id_mismatch", "card_identity_mismatch"]);
  });

  test("policy: not opted in 403, the directory's own agent 403; a copy of the listed card elsewhere binds only the genesis key", async () => {
    const { dir, alice } = await network();
    await expectError(await post(dir, listingRequest(dir, { from: alice.agentId!, cardUrl: alice.cardUrl! })), 403, "discovery_not_enabled");
    await asOwner(dir, "/api/svc/discovery/publish", { method: "POST" });
    await expectError(await post(dir, listingRequest(dir, { from: dir.agentId!, cardUrl: dir.cardUrl!, signer: "carol" })), 403, "self_listing");

    await asOwner(alice, "/api/svc/discovery/publish", { method: "POST" });
    expect((await post(dir, listingRequest(dir, { from: alice.agentId!, cardUrl: alice.cardUrl! }))).status).toBe(200);
    // An unsigned copy of alice's card elsewhere that adds bob's key names alice's genesis key alone
    // (bindAgentCard): bob's key cannot move or delist the listing through it.
    const copy = fakeAgent("copycat", "alice", { extraKeys: ["bob"] });
    fakes.push(copy);
    await expectError(await post(dir, listingRequest(dir, { from: alice.agentId!, cardUrl: copy.cardUrl, signer: "bob" })), 401, "signature_verification_failed");
    await expectError(await post(dir, listingRequest(dir, { from: alice.agentId!, cardUrl: copy.cardUrl, signer: "bob", action: "unpublish" })), 401, "signature_verification_failed");
    expect(await searchHandles(dir, "alice")).toEqual(["alice"]);
    // alice herself may move her listing: her key is the genesis key both cards name
    expect((await post(dir, listingRequest(dir, { from: alice.agentId!, cardUrl: copy.cardUrl }))).status).toBe(200);
  });

  test("a key the card lists as retired is refused for a live request (401); the active key after rotation works", async () => {
    const { dir, alice } = await network();
    await asOwner(alice, "/api/svc/discovery/publish", { method: "POST" });
    alice.clock.advance(60_000);
    rotateSigningKey(alice.ctx({ kind: "owner", subject: "owner" }), { generateKey: (role, keyId, now) => ({ ...personaKey("alice", role, 1, now), keyId }) });
    await expectError(await post(dir, listingRequest(dir, { from: alice.agentId!, cardUrl: alice.cardUrl! })), 401, "retired_key_for_live_auth");
    const rotated = listingRequest(dir, { from: alice.agentId!, cardUrl: alice.cardUrl!, generation: 1 });
    expect((await post(dir, rotated)).status).toBe(200); // the genesis key is retired, not revoked: still bound
  });

  test("a node without an agent has no directory: 404 unknown_recipient", async () => {
    const empty = bootTestApp({ agent: false });
    try {
      const res = await empty.request(LISTINGS_PATH, { method: "POST", headers: { "content-type": "application/json" }, body: "{}" });
      await expectError(res, 404, "unknown_recipient");
      await expectError(await empty.request("/ink/v1/discovery/query", { method: "POST", headers: { "content-type": "application/json" }, body: "{}" }), 404, "unknown_recipient");
    } finally {
      empty.close();
    }
  });

  test("limits: 10 requests per minute per requester, 20 per minute per IP (429 with Retry-After)", async () => {
    const { dir, alice } = await network();
    await asOwner(alice, "/api/svc/discovery/publish", { method: "POST" });
    for (let i = 0; i < 10; i++) expect((await post(dir, listingRequest(dir, { from: alice.agentId!, cardUrl: alice.cardUrl! }))).status).toBe(200);
    const limited = await post(dir, listingRequest(dir, { from: alice.agentId!, cardUrl: alice.cardUrl! }));
    await expectError(limited, 429, "rate_limited");
    expect(Number(limited.headers.get("retry-after"))).toBeGreaterThan(0);
    const sameIp = (n: number) => {
      const r = listingRequest(dir, { from: `did:plc:x${n}`, cardUrl: `https://x.kith.test/ink/v1/did%3Aplc%3Ax${n}/agent.json` });
      r.headers["x-test-remote-address"] = "198.51.100.77";
      return post(dir, r).then((res) => ({ n, status: res.status }));
    };
    for (let i = 0; i < 20; i++) expect((await sameIp(i)).status).toBe(400);
    expect((await sameIp(20)).status).toBe(429);
  });

  test("the OpenAPI document describes the listing route and the discovery-query route", async () => {
    const { dir } = await network();
    const doc = await json(await dir.request("/.well-known/openapi.json"));
    const listing = doc.paths["/ink/v1/directory/listings"].post;
    expect(listing.security).toEqual([{ inkSignature: [] }]);
    expect(listing.description).toContain("directory_listing");
    expect(Object.keys(listing.responses)).toEqual(expect.arrayContaining(["200", "400", "401", "403", "409", "429"]));
    expect(doc.paths["/ink/v1/discovery/query"].post.description).toContain("discovery_query");
  });
});
