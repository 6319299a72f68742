import { afterEach, describe, expect, test } from "bun:test";
import {
  checkCardContinuity,
  recipientEncryptionKey,
  senderKeysFromCard,
  validateAgentCard,
  verifyAgentCardProof,
  verifyWithSenderKeys,
  ed25519Sign,
  nobleStrictVerifier,
  type AgentCard,
} from "../../src/ink/index.ts";

import { rotateSigningKey } from "../../src/domain/identity/rotate-signing-key.ts";
import { bootTestApp, type TestNode } from "../helpers/boot.ts";
import { asOwner } from "../helpers/owner.ts";
import { personaKey } from "../helpers/personas.ts";
import { json } from "../helpers/process.ts";

/**
 * Owner API key revocation (SPEC `revoked`, INK §10/§13): POST /api/svc/keys/:keyId/revoke. The
 * card shows the revoked entry with revokedAt, a new keySetVersion and a chain link at once; its
 * proof verifies and a peer's cached card continues to it; the revoked key verifies nothing again.
 */
let node: TestNode;
afterEach(() => node?.close());

async function card(n: TestNode): Promise<AgentCard & Record<string, any>> {
  const res = await n.request("/.well-known/ink/agent.json");
  expect(res.status).toBe(200);
  return json(res);
}

function expectPublishable(c: unknown) {
  expect(validateAgentCard(c)).toMatchObject({ ok: true });
  expect(verifyAgentCardProof(c)).toMatchObject({ ok: true, kind: "signed" });
}

/** Would a verifier that holds `c` accept a signature by `key` over `message` made at `atMs`? */
function verifiesUnder(c: AgentCard, key: { privateKey: Uint8Array }, atMs: number): boolean {
  const message = new TextEncoder().encode("an artifact signed before the revocation");
  const signature = ed25519Sign(message, key.privateKey);
  return verifyWithSenderKeys(senderKeysFromCard(c), atMs, null, (pk) => nobleStrictVerifier(pk, message, signature)).ok;
}

describe("POST /api/svc/keys/:keyId/revoke", () => {
  test("revoking the active signing key: revoked entry with revokedAt, a new active key, version +1, a verifiable chain", async () => {
    node = bootTestApp();
    const before = await card(node);
    const listed = await json(await asOwner(node, "/api/svc/keys"));
    expect(listed.map((k: { keyId: string; status: string }) => `${k.keyId}:${k.status}`)).toEqual(["enc-alice-0:active", "sig-alice-0:active"]);
    const signedAt = node.clock.now();
    node.clock.advance(60_000);

    const res = await asOwner(node, "/api/svc/keys/sig-alice-0/revoke", { method: "POST" });
    expect(res.status).toBe(200);
    const result = await json(res);
    expect(result).toMatchObject({ revokedKeyId: "sig-alice-0", role: "signing", revokedAt: new Date(node.clock.now()).toISOString(), keySetVersion: 2 });
    expect(result.replacementKeyId).toMatch(/^sig-/);

    const after = await card(node);
    expectPublishable(after);
    expect(after.keySetVersion).toBe(2);
    expect(after.currentSigningKeyId).toBe(result.replacementKeyId);
    expect(after.cardSignature?.keyId).toBe(result.replacementKeyId);
    const revoked = after.keys!.signing!.find((k) => k.keyId === "sig-alice-0")!;
    expect(revoked).toMatchObject({ status: "revoked", revokedAt: result.revokedAt });
    expect(after.publicKeyMultibase).not.toBe(personaKey("alice", "signing").publicKeyMultibase);
    expect(after.rotationChain?.at(-1)).toMatchObject({ keySetVersion: 2, prevKeyId: "sig-alice-0" });
    // A peer holding the old card accepts the new one (INK §13 continuity through the link)...
    expect(checkCardContinuity(before, after)).toEqual({ ok: true });
    // ...and with it the revoked key verifies nothing, not even what it signed before the revocation.
    expect(verifiesUnder(before as AgentCard, personaKey("alice", "signing"), signedAt)).toBe(true);
    expect(verifiesUnder(after as AgentCard, personaKey("alice", "signing"), signedAt)).toBe(false);
    // The owner's view and the key list agree.
    expect(await json(await asOwner(node, "/api/svc"))).toMatchObject({ currentSigningKeyId: result.replacementKeyId, keySetVersion: 2 });
    const keys = await json(await asOwner(node, "/api/svc/keys"));
    expect(keys.find((k: { keyId: string }) => k.keyId === "sig-alice-0")).toMatchObject({ status: "revoked", revokedAt: result.revokedAt });
  });

  test("revoking a retired key: no new key, version +1, the chain still verifies; a later rotation continues it", async () => {
    node = bootTestApp();
    const rotated = rotateSigningKey(node.ctx());
    const before = await card(node);
    const res = await asOwner(node, "/api/svc/keys/sig-alice-0/revoke", { method: "POST" });
    expect(res.status).toBe(200);
    expect(await json(res)).toMatchObject({ revokedKeyId: "sig-alice-0", replacementKeyId: null, keySetVersion: 3 });
    const after = await card(node);
    expectPublishable(after);
    expect(after.currentSigningKeyId).toBe(rotated.activeKeyId);
    expect(after.keys!.signing!.map((k) => `${k.keyId === "sig-alice-0" ? "genesis" : "next"}:${k.status}`).sort()).toEqual(["genesis:revoked", "next:active"]);
    expect(checkCardContinuity(before, after)).toEqual({ ok: true });
    const again = rotateSigningKey(node.ctx());
    const latest = await card(node);
    expectPublishable(latest);
    expect(latest.keySetVersion).toBe(again.keySetVersion);
    expect(checkCardContinuity(after, latest)).toEqual({ ok: true });
  });

  test("revoking the active encryption key makes a new one that peers seal to; the signing chain gets a link at the new version", async () => {
    node = bootTestApp();
    const before = await card(node);
    const res = await asOwner(node, "/api/svc/keys/enc-alice-0/revoke", { method: "POST" });
    expect(res.status).toBe(200);
    const result = await json(res);
    expect(result).toMatchObject({ revokedKeyId: "enc-alice-0", role: "encryption", keySetVersion: 2 });
    expect(result.replacementKeyId).toMatch(/^enc-/);
    const after = await card(node);
    expectPublishable(after);
    expect(after.currentEncryptionKeyId).toBe(result.replacementKeyId);
    expect(recipientEncryptionKey(after as AgentCard)?.keyId).toBe(result.replacementKeyId);
    expect(after.keys!.encryption!.find((k) => k.keyId === "enc-alice-0")).toMatchObject({ status: "revoked" });
    expect(checkCardContinuity(before, after)).toEqual({ ok: true });
  });

  test("404 for an unknown key id, 409 for a key already revoked, 401 without the owner's token; nothing changes", async () => {
    node = bootTestApp();
    expect((await asOwner(node, "/api/svc/keys/sig-nobody/revoke", { method: "POST" })).status).toBe(404);
    const unauthenticated = await node.request("/api/svc/keys/sig-alice-0/revoke", { method: "POST" });
    expect(unauthenticated.status).toBe(401);
    expect((await node.request("/api/svc/keys")).status).toBe(401);
    expect((await card(node)).keySetVersion).toBe(1);
    expect((await asOwner(node, "/api/svc/keys/sig-alice-0/revoke", { method: "POST" })).status).toBe(200);
    const twice = await asOwner(node, "/api/svc/keys/sig-alice-0/revoke", { method: "POST" });
    expect(twice.status).toBe(409);
    expect(await json(twice)).toMatchObject({ error: "conflict", message: expect.stringContaining("already revoked") });
    expect((await card(node)).keySetVersion).toBe(2);
  });

  test("is in the OpenAPI document", async () => {
    node = bootTestApp();
    const doc = await json(await node.request("/.well-known/openapi.json"));
    expect(doc.paths["/api/svc/keys/{keyId}/revoke"]?.post?.summary).toBe("Revoke a compromised key");
    expect(doc.paths["/api/svc/keys"]?.get).toBeDefined();
  });
});
