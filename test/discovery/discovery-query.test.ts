import { afterEach, describe, expect, test } from "bun:test";
import { transaction } from "../../src/db/client.ts";
import { inboundNonces, peerCards } from "../../src/db/schema/index.ts";
import { saveListing, type ListingProfile } from "../../src/domain/discovery/internal/listings.ts";
import { formatTimestamp, signAgentCard, signDiscoveryQuery, signRotationLink, type DiscoveryQuery } from "../../src/ink/index.ts";
import { bootTestApp, type TestNode } from "../helpers/boot.ts";
import { freshNonce } from "../helpers/ink.ts";
import { personaKey, type PersonaName } from "../helpers/personas.ts";
import { json } from "../helpers/process.ts";

let node: TestNode;
afterEach(() => node?.close());

const PATH = "/ink/v1/discovery/query";
const idOf = (p: PersonaName, generation = 0) => `svc:${personaKey(p, "signing", generation).publicKeyMultibase}`;

function seed(n: TestNode) {
  const profile = (handle: string, tags: string[], skills: string[] = []): ListingProfile => ({ handle, displayName: handle, headline: "", bio: "", skills, interests: [], openTo: [], roles: [], tags, location: null });
  transaction(n.db, (tx) => {
    [profile("rusty", ["rust", "wasm"]), profile("gopher", ["go"], ["Rust"]), profile("zig", ["zig", "wasm"])].forEach((p, i) => {
      const key = new Uint8Array(32).fill(i + 1);
      key[0] = 210;
      const mb = `z6Mk${i}fake`;
      saveListing(tx, { principal: `key:${mb}`, agentId: `svc:${mb}`, cardUrl: `https://n${i}.example/ink/v1/svc%3A${mb}/agent.json`, source: "remote", profile: p }, n.clock.now() + i, null);
    });
  });
}

/** A discovery query from `from` (signed by `signer`'s key), as raw JSON text. */
function envelope(input: { query?: DiscoveryQuery; from?: string; to?: string; signer?: PersonaName; generation?: number; timestamp?: number; nonce?: string; tamper?: (e: Record<string, unknown>) => void }): string {
  const signer = input.signer ?? "bob";
  const signed = signDiscoveryQuery(
    { from: input.from ?? idOf("bob"), to: input.to ?? node.agentId!, nonce: input.nonce ?? freshNonce(), timestamp: formatTimestamp(input.timestamp ?? node.clock.now()), query: input.query ?? { tags: ["wasm"] } },
    personaKey(signer, "signing", input.generation ?? 0).privateKey,
    "svc",
  );
  if (!signed.ok) throw new Error(signed.issue);
  const e = { ...signed.envelope } as Record<string, unknown>;
  input.tamper?.(e);
  return JSON.stringify(e);
}
const ask = (body: string, ip = "192.0.2.44") => node.request(PATH, { method: "POST", headers: { "content-type": "application/json", "x-test-remote-address": ip }, body });
const expectReason = async (res: Response, status: number, code: string) => {
  const body = await json(res);
  expect({ status: res.status, code: body.code, error: body.error, protocol: body.protocol }).toEqual({ status, code, error: code, protocol: "ink/0.1" });
};

describe("signed INK discovery queries (INK §18)", () => {
  test("answers public listings carrying every tag (as a tag or a skill), up to limit; the neutral type spelling works", async () => {
    node = bootTestApp();
    seed(node);
    const res = await ask(envelope({ query: { tags: ["wasm"] } }));
    expect(res.status).toBe(200);
    const body = await json(res);
    expect(body.protocol).toBe("ink/0.1");
    expect(body.query).toEqual({ tags: ["wasm"], limit: 20 });
    expect(body.results.map((r: { handle: string }) => r.handle).sort()).toEqual(["rusty", "zig"]);
    expect(Object.keys(body.results[0])).toEqual(expect.arrayContaining(["agentId", "handle", "displayName", "bio", "skills", "interests", "headline", "openTo", "tags", "cardUrl"]));
    const both = await json(await ask(envelope({ query: { tags: ["WASM", "rust"] } })));
    expect(both.results.map((r: { handle: string }) => r.handle)).toEqual(["rusty"]); // AND
    const skill = await json(await ask(envelope({ query: { tags: ["rust"] } })));
    expect(skill.results.map((r: { handle: string }) => r.handle).sort()).toEqual(["gopher", "rusty"]); // a skill counts
    const limited = await json(await ask(envelope({ query: { tags: ["wasm"], limit: 1 } })));
    expect(limited.results).toHaveLength(1);
    const all = await json(await ask(envelope({ query: {} })));
    expect(all.results.map((r: { handle: string }) => r.handle)).toEqual(["rusty", "gopher", "zig"]); // no tags: every listing, oldest first
    const neutral = signDiscoveryQuery({ from: idOf("bob"), to: node.agentId!, nonce: freshNonce(), timestamp: formatTimestamp(node.clock.now()), query: { tags: ["go"] }, neutralType: true }, personaKey("bob", "signing").privateKey, "svc");
    expect(neutral.ok && neutral.envelope.type).toBe("network.ink.discovery_query");
    expect((await json(await ask(JSON.stringify(neutral.ok && neutral.envelope)))).results).toHaveLength(1);
  });

  test("one rejection per reason: schema 400, signature 401, audience 403, expired 401, not_yet_valid 401, replay 409", async () => {
    node = bootTestApp();
    seed(node);
    await expectReason(await ask(envelope({ tamper: (e) => (e.extra = 1) })), 400, "schema");
    await expectReason(await ask(envelope({ tamper: (e) => (e.query = { tags: ["x"], limit: 101 }) })), 400, "schema");
    await expectReason(await ask("not json"), 400, "schema");
    await expectReason(await ask(envelope({ tamper: (e) => (e.type = "network.svc.agent_card_query") })), 400, "schema");
    await expectReason(await ask(envelope({ signer: "carol" })), 401, "signature");
    await expectReason(await ask(envelope({ tamper: (e) => (e.query = { tags: ["zig"] }) })), 401, "signature");
    await expectReason(await ask(envelope({ to: idOf("carol") })), 403, "audience");
    await expectReason(await ask(envelope({ timestamp: node.clock.now() - 300_001 })), 401, "expired");
    await expectReason(await ask(envelope({ timestamp: node.clock.now() + 30_001 })), 401, "not_yet_valid");
    const once = envelope({});
    expect((await ask(once)).status).toBe(200);
    await expectReason(await ask(once), 409, "replay");
    expect(node.db.select().from(inboundNonces).all().length).toBe(1); // persisted, keyed (from, nonce)
  });

  test("checks run in INK's order: schema before signature before audience before freshness before replay", async () => {
    node = bootTestApp();
    await expectReason(await ask(envelope({ signer: "carol", tamper: (e) => (e.extra = 1) })), 400, "schema");
    await expectReason(await ask(envelope({ signer: "carol", to: idOf("carol") })), 401, "signature");
    await expectReason(await ask(envelope({ to: idOf("carol"), timestamp: node.clock.now() - 400_000 })), 403, "audience");
    const nonce = freshNonce();
    expect((await ask(envelope({ nonce }))).status).toBe(200);
    await expectReason(await ask(envelope({ nonce, timestamp: node.clock.now() - 400_000 })), 401, "expired");
    // a forged query never burns a nonce
    const fresh = freshNonce();
    await expectReason(await ask(envelope({ nonce: fresh, signer: "carol" })), 401, "signature");
    expect((await ask(envelope({ nonce: fresh }))).status).toBe(200);
  });

  test("a requester whose card this node knows is verified under that card's keys, not its genesis key (authority rule)", async () => {
    node = bootTestApp();
    const genesis = personaKey("bob", "signing", 0);
    const rotated = personaKey("bob", "signing", 1);
    const link = signRotationLink(
      { keySetVersion: 2, signing: [{ keyId: "sig-bob-0", publicKeyMultibase: genesis.publicKeyMultibase, status: "retired" }, { keyId: "sig-bob-1", publicKeyMultibase: rotated.publicKeyMultibase, status: "active" }], prevKeyId: "sig-bob-0" },
      genesis.privateKey,
    );
    if (!link.ok) throw new Error(link.reason);
    const unsigned = {
      protocol: "ink/0.1", agentId: idOf("bob"), handle: "bob", displayName: "Bob", endpoint: "https://bob.example/ink/v1/x/intent", publicKeyMultibase: rotated.publicKeyMultibase,
      capabilities: { intentsAccepted: [], intentsSent: [] }, availability: { timezone: "UTC" },
      keys: { signing: [
        { keyId: "sig-bob-0", algorithm: "Ed25519", publicKeyMultibase: genesis.publicKeyMultibase, status: "retired", validFrom: "2026-01-01T00:00:00.000Z", validUntil: "2026-02-01T00:00:00.000Z" },
        { keyId: "sig-bob-1", algorithm: "Ed25519", publicKeyMultibase: rotated.publicKeyMultibase, status: "active", validFrom: "2026-02-01T00:00:00.000Z" },
      ], encryption: [] },
      currentSigningKeyId: "sig-bob-1", keySetVersion: 2, rotationChain: [link.link],
    };
    const store = (card: object) => {
      const now = node.clock.now();
      node.db.delete(peerCards).run();
      node.db.insert(peerCards).values({ principal: `key:${idOf("bob").slice(4)}`, agentId: idOf("bob"), cardUrl: "https://bob.example/card", cardJson: JSON.stringify(card), fetchedAt: now, expiresAt: now + 3_600_000, signingSetObserved: true, createdAt: now, updatedAt: now }).run();
    };
    const signed = signAgentCard(unsigned, rotated.privateKey, "sig-bob-1");
    if (!signed.ok) throw new Error(signed.reason);
    store(signed.card);
    await expectReason(await ask(envelope({ signer: "bob", generation: 0 })), 401, "signature");
    expect((await ask(envelope({ signer: "bob", generation: 1 }))).status).toBe(200);
    // The same rotation on an unsigned card is not believed: it names the genesis key alone (retired here).
    store(unsigned);
    await expectReason(await ask(envelope({ signer: "bob", generation: 1 })), 401, "signature");
  });

  test("30 per minute per requester, 60 per minute per IP (429 with Retry-After); wrong media type 415", async () => {
    node = bootTestApp();
    for (let i = 0; i < 30; i++) expect((await ask(envelope({}), "192.0.2.50")).status).toBe(200);
    const limited = await ask(envelope({}), "192.0.2.51");
    await expectReason(limited, 429, "rate_limited");
    expect(Number(limited.headers.get("retry-after"))).toBeGreaterThan(0);
    for (let i = 0; i < 59; i++) expect((await ask("{}", "192.0.2.52")).status).toBe(400);
    expect((await ask(envelope({ from: idOf("carol"), signer: "carol" }), "192.0.2.52")).status).toBe(200);
    await expectReason(await ask(envelope({ from: idOf("carol"), signer: "carol" }), "192.0.2.52"), 429, "rate_limited");
    const res = await node.request(PATH, { method: "POST", headers: { "content-type": "text/plain" }, body: envelope({ from: idOf("carol"), signer: "carol" }) });
    expect(res.status).toBe(415);
  });
});
