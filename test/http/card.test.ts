import { afterEach, describe, expect, test } from "bun:test";
import { checkCardContinuity, validateAgentCard, verifyAgentCardProof } from "../../src/ink/index.ts";
import { agentKeys, agentRotationLinks, agents } from "../../src/db/schema/index.ts";
import { nativeStrictVerifier } from "../../src/security/ed25519-native.ts";
import { rotateSigningKey } from "../../src/domain/identity/rotate-signing-key.ts";
import { bootTestApp, type TestNode } from "../helpers/boot.ts";
import { json } from "../helpers/process.ts";
import { personaKey, personaKeyGenerator } from "../helpers/personas.ts";

let node: TestNode;
afterEach(() => node?.close());

describe("Agent Card", () => {
  test("is served at the INK discovery path, satisfies the INK card rules, and is built from the node's keys", async () => {
    node = bootTestApp();
    const res = await node.request(`/ink/v1/${encodeURIComponent(node.agentId!)}/agent.json`);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("application/json");
    const card = await json(res);
    expect(validateAgentCard(card)).toMatchObject({ ok: true });
    const signing = personaKey("alice", "signing");
    expect(card).toMatchObject({
      protocol: "ink/0.1",
      agentId: `svc:${signing.publicKeyMultibase}`,
      publicKeyMultibase: signing.publicKeyMultibase,
      handle: "alice",
      displayName: "Alice Example",
      endpoint: `https://alice.example.com/ink/v1/svc:${signing.publicKeyMultibase}/intent`,
      availability: { timezone: "Europe/Paris" },
      supportedProtocolVersions: ["ink/0.1", "ink/0.2"],
      currentSigningKeyId: "sig-alice-0",
      currentEncryptionKeyId: "enc-alice-0",
      keySetVersion: 1,
    });
    expect(card.keys.signing).toEqual([{ keyId: "sig-alice-0", algorithm: "Ed25519", publicKeyMultibase: signing.publicKeyMultibase, status: "active", validFrom: card.keys.signing[0].validFrom }]);
    expect(card.keys.encryption[0]).toMatchObject({ algorithm: "X25519", publicKeyMultibase: personaKey("alice", "encryption").publicKeyMultibase, status: "active" });
    expect(card.capabilities.intentsAccepted).toContain("connection_request");
    expect(JSON.stringify(card)).not.toMatch(/privateKey|secret/i);
  });

  test("advertises no INK profile the node does not implement (docs/decisions/ink-profiles.md)", async () => {
    node = bootTestApp();
    const card = await json(await node.request(`/ink/v1/${encodeURIComponent(node.agentId!)}/agent.json`));
    // evidence: attestations / evidencePolicy; containment and delegation: governance; audit and
    // witness submission: thirdPartyAudit. Receipts and the audit exchange are served (issue 19).
    for (const member of ["attestations", "evidencePolicy", "governance"]) expect({ member, present: member in card }).toEqual({ member, present: false });
    expect(Object.keys(card.capabilities).sort()).toEqual(["auditExchange", "intentsAccepted", "intentsSent", "receipts"]);
    expect(card.capabilities).toMatchObject({ receipts: { send: true, dispositions: ["delivered"] }, auditExchange: true });
    expect(card.visibility).toBe("public"); // capability_gated visibility is containment's
  });

  test("the unencoded path, the SPEC path and the .well-known alias are byte-identical", async () => {
    node = bootTestApp();
    const bodies = await Promise.all(
      [`/ink/v1/${encodeURIComponent(node.agentId!)}/agent.json`, `/ink/v1/${node.agentId}/agent.json`, `/agents/${node.agentId}/agent.json`, "/.well-known/ink/agent.json"].map(async (p) => {
        const r = await node.request(p);
        expect(r.status).toBe(200);
        return r.text();
      }),
    );
    expect(new Set(bodies).size).toBe(1);
  });

  test("any other agent id is a JSON 404, including other spellings of the same key", async () => {
    node = bootTestApp();
    const key = personaKey("alice", "signing").publicKeyMultibase;
    for (const id of [`tulpa:${key}`, `ink:${key}`, `svc:${personaKey("bob", "signing").publicKeyMultibase}`, "alice", "x".repeat(600)]) {
      const res = await node.request(`/ink/v1/${encodeURIComponent(id)}/agent.json`);
      expect(res.status).toBe(404);
      expect(await json(res)).toMatchObject({ error: "not_found" });
      expect((await node.request(`/agents/${encodeURIComponent(id)}/agent.json`)).status).toBe(404);
    }
  });

  test("a node without an agent answers 404 on every card path", async () => {
    node = bootTestApp({ agent: false });
    expect((await node.request("/.well-known/ink/agent.json")).status).toBe(404);
  });

  test("tulpa wordmark: agent id and endpoint use tulpa:", async () => {
    node = bootTestApp({ wordmark: "tulpa" });
    const card = await json(await node.request("/.well-known/ink/agent.json"));
    expect(card.agentId).toStartWith("tulpa:z6Mk");
    expect(card.endpoint).toContain(`/ink/v1/${card.agentId}/intent`);
    expect(validateAgentCard(card).ok).toBe(true);
  });

  test("a key rotation shows on the next read: new active key, old one retired with a window, version bumped", async () => {
    node = bootTestApp();
    const generate = personaKeyGenerator("alice");
    generate("signing", "", 0); // generation 0 is the genesis key already in use
    node.clock.advance(60_000);
    rotateSigningKey(node.ctx(), { generateKey: generate });
    const card = await json(await node.request("/.well-known/ink/agent.json"));
    const next = personaKey("alice", "signing", 1);
    expect(validateAgentCard(card).ok).toBe(true);
    expect(card.agentId).toBe(`svc:${personaKey("alice", "signing").publicKeyMultibase}`); // frozen at genesis
    expect(card.publicKeyMultibase).toBe(next.publicKeyMultibase);
    expect(card.currentSigningKeyId).toBe("sig-alice-1");
    expect(card.keySetVersion).toBe(2);
    expect(card.keys.signing).toHaveLength(2);
    expect(card.keys.signing[0]).toMatchObject({ keyId: "sig-alice-0", status: "retired", validUntil: new Date(node.clock.now()).toISOString() });
    expect(card.keys.signing[1]).toMatchObject({ keyId: "sig-alice-1", status: "active", validFrom: new Date(node.clock.now()).toISOString() });
    expect(card.updatedAt).toBe(new Date(node.clock.now()).toISOString());
    expect(node.vault.all().map((k) => k.keyId)).toContain("sig-alice-1");
  });
});

describe("Agent Card proof (INK §13 Phase B)", () => {
  const cardOf = async (n: TestNode) => json(await n.request("/.well-known/ink/agent.json"));

  test("the served card is signed by the current active key and verifies and roots at the genesis key", async () => {
    node = bootTestApp();
    const card = await cardOf(node);
    expect(card.cardSignature).toMatchObject({ keyId: "sig-alice-0" });
    expect(card.rotationChain).toBeUndefined();
    expect(verifyAgentCardProof(card, { verifier: nativeStrictVerifier })).toMatchObject({ ok: true, kind: "signed", keyId: "sig-alice-0", keySetVersion: 1, anchor: "genesis" });
    expect(verifyAgentCardProof({ ...card, displayName: "Mallory" })).toMatchObject({ ok: false, reason: "invalid_signature" });
  });

  for (const wordmark of ["svc", "tulpa"] as const) {
    test(`${wordmark}: after two rotations the card carries a two-link chain and verifies; each card continues the last`, async () => {
      node = bootTestApp({ wordmark });
      const generate = personaKeyGenerator("alice");
      generate("signing", "", 0);
      const first = await cardOf(node);
      node.clock.advance(60_000);
      rotateSigningKey(node.ctx(), { generateKey: generate });
      const second = await cardOf(node);
      node.clock.advance(60_000);
      rotateSigningKey(node.ctx(), { generateKey: generate });
      const third = await cardOf(node);
      expect(third.agentId).toStartWith(`${wordmark}:z6Mk`);
      expect(verifyAgentCardProof(second)).toMatchObject({ ok: true, kind: "signed", keyId: "sig-alice-1", keySetVersion: 2, anchor: "rotation-chain" });
      expect(verifyAgentCardProof(third)).toMatchObject({ ok: true, kind: "signed", keyId: "sig-alice-2", keySetVersion: 3, anchor: "rotation-chain" });
      expect(third.rotationChain).toHaveLength(2);
      expect(third.rotationChain[0]).toMatchObject({ keySetVersion: 2, prevKeyId: "sig-alice-0" });
      expect(third.rotationChain[1]).toMatchObject({ keySetVersion: 3, prevKeyId: "sig-alice-1" });
      expect(third.rotationChain[1].signing.map((k: { status: string }) => k.status)).toEqual(["retired", "retired", "active"]);
      expect(third.rotationChain[0]).toEqual(second.rotationChain[0]); // links are signed once, at rotation time
      expect(checkCardContinuity(first, second)).toEqual({ ok: true });
      expect(checkCardContinuity(first, third)).toEqual({ ok: true });
      expect(checkCardContinuity(third, first)).toMatchObject({ ok: false, reason: "continuity_version_regression" });
      const paths = [`/ink/v1/${encodeURIComponent(node.agentId!)}/agent.json`, `/agents/${node.agentId}/agent.json`, "/.well-known/ink/agent.json"];
      const bodies = await Promise.all(paths.map(async (p) => (await node.request(p)).text()));
      expect(new Set(bodies).size).toBe(1);
    });
  }

  test("a rotation that would need a 33rd chain link is refused, before any key is generated", async () => {
    node = bootTestApp();
    const generate = personaKeyGenerator("alice");
    generate("signing", "", 0);
    rotateSigningKey(node.ctx(), { generateKey: generate });
    // Fill the chain to INK's maximum (only the versions matter to the count).
    for (let v = 3; v <= 33; v++) node.db.insert(agentRotationLinks).values({ keySetVersion: v, linkJson: JSON.stringify({ keySetVersion: v }), createdAt: 0 }).run();
    node.db.update(agents).set({ keySetVersion: 33 }).run();
    const keysBefore = node.vault.all().length;
    expect(() => rotateSigningKey(node.ctx(), { generateKey: generate })).toThrow(/32 links, the most INK allows/);
    expect(node.vault.all()).toHaveLength(keysBefore);
    expect(node.db.select().from(agents).get()!.keySetVersion).toBe(33);
  });

  test("a rotation that would list a 33rd signing key is refused (INK §11 caps keys.signing at 32)", async () => {
    node = bootTestApp();
    for (let i = 1; i <= 31; i++) {
      const k = personaKey("carol", "signing", i);
      node.db.insert(agentKeys).values({ keyId: `old-${i}`, role: "signing", publicKeyMultibase: k.publicKeyMultibase, status: "retired", validFrom: 0, validUntil: 1, createdAt: 0 }).run();
    }
    expect(() => rotateSigningKey(node.ctx(), { generateKey: personaKeyGenerator("alice") })).toThrow(/already lists 32 signing keys/);
    expect(node.db.select().from(agents).get()!.keySetVersion).toBe(1);
  });

  test("a node that rotated before it kept a chain serves its card unsigned, and its next rotation bridges from genesis", async () => {
    node = bootTestApp();
    const generate = personaKeyGenerator("alice");
    generate("signing", "", 0);
    rotateSigningKey(node.ctx(), { generateKey: generate });
    node.db.delete(agentRotationLinks).run(); // as a database from before migration 0006 would be
    const legacy = await cardOf(node);
    expect(legacy.cardSignature).toBeUndefined();
    expect(node.logLines.some((l) => l.msg === "agent card served unsigned: its proof would not verify")).toBe(true);
    node.clock.advance(60_000);
    rotateSigningKey(node.ctx(), { generateKey: generate });
    const card = await cardOf(node);
    expect(card.rotationChain.map((l: { keySetVersion: number; prevKeyId: string }) => [l.keySetVersion, l.prevKeyId])).toEqual([[2, "sig-alice-0"], [3, "sig-alice-1"]]);
    expect(verifyAgentCardProof(card)).toMatchObject({ ok: true, kind: "signed", keyId: "sig-alice-2", anchor: "rotation-chain" });
  });
});
