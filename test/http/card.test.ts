import { afterEach, describe, expect, test } from "bun:test";
import { validateAgentCard } from "../../src/ink/index.ts";
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
    rotateSigningKey(node.ctx(), { vault: node.vault, generateKey: generate });
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
