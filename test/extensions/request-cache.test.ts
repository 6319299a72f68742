import { Database } from "bun:sqlite";
import { afterEach, describe, expect, test } from "bun:test";
import { rotateSigningKey } from "../../src/domain/identity/rotate-signing-key.ts";
import { bootTestApp, type TestNode } from "../helpers/boot.ts";
import { acmeKey, extRequest, installAcme, renewToken, signExtensionRequest } from "../helpers/extensions.ts";
import { authenticateExtension } from "../../src/domain/extensions/authenticate-extension.ts";
import { nativeStrictVerifier } from "../../src/security/ed25519-native.ts";
import type { Ed25519Verifier } from "../../src/ink/index.ts";
import { asOwner } from "../helpers/owner.ts";

// The extension request path caches verified tokens, installations and the agent's active key id
// per generation of `cache_generations` (migration 0014, request-cache.ts). Each change below is
// made after a request has warmed the cache, and must show on the very next request, whether this
// node made it or another connection to the same file did (a `kith` CLI command on a live node).
let node: TestNode;
let other: Database | null = null;
afterEach(() => {
  other?.close();
  other = null;
  node?.close();
});

async function errorOf(res: Response): Promise<[number, string]> {
  return [res.status, ((await res.json()) as { error: string }).error];
}

/** A node with acme installed and one request answered (every cache warm), and a second connection to its file. */
async function warm(): Promise<{ token: string; installationId: string; sql: Database }> {
  node = bootTestApp();
  const { token, installationId } = await installAcme(node);
  expect((await extRequest(node, token, "GET", "/ext/v1/identity")).status).toBe(200);
  expect((await extRequest(node, token, "GET", "/ext/v1/connections")).status).toBe(200);
  other = new Database(node.db.$client.filename);
  other.exec("PRAGMA busy_timeout = 5000");
  return { token, installationId, sql: other };
}

const ok = async (token: string, target = "/ext/v1/identity") => expect((await extRequest(node, token, "GET", target)).status).toBe(200);

describe("the request cache follows every change, made here or by another connection", () => {
  test("an agent key rotation here: the old token is token_invalid, and the next audit event is signed by the new key", async () => {
    const { token, installationId } = await warm();
    rotateSigningKey(node.ctx());
    expect(await errorOf(await extRequest(node, token, "GET", "/ext/v1/identity"))).toEqual([401, "token_invalid"]);
    const fresh = await renewToken(node, installationId);
    const identity = await extRequest(node, fresh, "GET", "/ext/v1/identity");
    expect(identity.status).toBe(200);
    const { key_id: active, public_key_multibase: multibase } = node.db.$client
      .query<{ key_id: string; public_key_multibase: string }, []>("SELECT key_id, public_key_multibase FROM agent_keys WHERE role = 'signing' AND status = 'active'")
      .get()!;
    expect(((await identity.json()) as { publicKeyMultibase: string }).publicKeyMultibase).toBe(multibase); // the identity names the new key
    const last = node.db.$client.query<{ event_json: string }, [string]>("SELECT event_json FROM audit_events WHERE chain_id = ? ORDER BY sequence DESC LIMIT 1").get(installationId)!;
    expect(JSON.parse(last.event_json)).toMatchObject({ eventType: "delegation.used", signingKeyId: active });
  });

  test("an agent key revoked by another connection: token_invalid", async () => {
    const { token, sql } = await warm();
    sql.run("UPDATE agent_keys SET status = 'revoked', revoked_at = 1 WHERE role = 'signing' AND status = 'active'");
    expect(await errorOf(await extRequest(node, token, "GET", "/ext/v1/identity"))).toEqual([401, "token_invalid"]);
  });

  test("a renewal by another connection (a new token hash): the old token is token_revoked", async () => {
    const { token, installationId, sql } = await warm();
    sql.run("UPDATE extension_installations SET token_hash = ? WHERE id = ?", ["0".repeat(64), installationId]);
    expect(await errorOf(await extRequest(node, token, "GET", "/ext/v1/identity"))).toEqual([401, "token_revoked"]);
  });

  test("a grant narrowed by another connection: the permission is gone on the next request (403)", async () => {
    const { token, installationId, sql } = await warm();
    sql.run(`UPDATE extension_installations SET permissions_json = '["profile:read"]' WHERE id = ?`, [installationId]);
    const res = await extRequest(node, token, "GET", "/ext/v1/connections");
    expect(res.status).toBe(403);
    await ok(token);
  });

  test("an uninstall by another connection: installation_inactive", async () => {
    const { token, installationId, sql } = await warm();
    sql.run("UPDATE extension_installations SET status = 'uninstalled' WHERE id = ?", [installationId]);
    expect(await errorOf(await extRequest(node, token, "GET", "/ext/v1/identity"))).toEqual([401, "installation_inactive"]);
  });

  test("a suspension by another connection: installation_inactive; lifting it restores the installation", async () => {
    const { token, sql } = await warm();
    sql.run(
      `INSERT INTO marketplace_extensions (extension_id, listing_state, name, summary, publisher_name, publisher_domain, categories, created_at, updated_at)
       VALUES ('com.acme.keepintouch', 'suspended', 'Acme', 'Keeps in touch', 'Acme', 'acme.example', '[]', 1, 1)`,
    );
    expect(await errorOf(await extRequest(node, token, "GET", "/ext/v1/identity"))).toEqual([401, "installation_inactive"]);
    sql.run("UPDATE marketplace_extensions SET listing_state = 'listed' WHERE extension_id = 'com.acme.keepintouch'");
    await ok(token);
    sql.run("UPDATE marketplace_extensions SET listing_state = 'suspended' WHERE extension_id = 'com.acme.keepintouch'");
    expect(await errorOf(await extRequest(node, token, "GET", "/ext/v1/identity"))).toEqual([401, "installation_inactive"]);
  });

  test("the extension's key dropped by another connection: signature_invalid; a new key there signs nothing until a token names it", async () => {
    const { token, installationId, sql } = await warm();
    const next = acmeKey(1);
    sql.run("UPDATE extension_installations SET keys_json = ? WHERE id = ?", [JSON.stringify([{ keyId: "k2", publicKeyMultibase: next.multibase, status: "active" }]), installationId]);
    expect(await errorOf(await extRequest(node, token, "GET", "/ext/v1/identity"))).toEqual([401, "signature_invalid"]);
    expect(await errorOf(await extRequest(node, token, "GET", "/ext/v1/identity", { secretKey: next.secretKey }))).toEqual([401, "signature_invalid"]);
  });

  test("the same changes through the owner API: a grant change, an uninstall", async () => {
    const { token, installationId } = await warm();
    const put = await asOwner(node, `/api/svc/extensions/${installationId}/permissions`, { method: "PUT", body: { permissions: ["connections:list"], layers: ["inner"] } });
    expect(put.status).toBe(200);
    expect(await errorOf(await extRequest(node, token, "GET", "/ext/v1/identity"))).toEqual([401, "token_revoked"]);
    const fresh = ((await put.json()) as { delegationToken: string }).delegationToken;
    await ok(fresh, "/ext/v1/connections");
    await asOwner(node, `/api/svc/extensions/${installationId}`, { method: "DELETE" });
    expect(await errorOf(await extRequest(node, fresh, "GET", "/ext/v1/identity"))).toEqual([401, "installation_inactive"]);
  });

  test("a warm request verifies one signature, its own (the token is not verified again, though the checks read in a transaction)", async () => {
    const { token, sql } = await warm();
    let verifies = 0;
    const counting: Ed25519Verifier = (publicKey, message, signature) => (verifies++, nativeStrictVerifier(publicKey, message, signature));
    const input = () => {
      const h = signExtensionRequest("GET", "/ext/v1/identity", "", { timestamp: new Date(node.clock.now()).toISOString() });
      return { authorization: `Bearer ${token}`, nonce: h["x-request-nonce"]!, timestamp: h["x-request-timestamp"]!, signature: h["x-extension-signature"]!, method: "GET", target: "/ext/v1/identity", body: new Uint8Array(0) };
    };
    const ctx = node.ctx({ kind: "public", ip: null });
    for (let i = 0; i < 3; i++) authenticateExtension(ctx, input(), counting);
    expect(verifies).toBe(3);
    expect(node.db.$client.inTransaction).toBe(false); // the checks' read transaction is over
    sql.exec("UPDATE cache_generations SET generation = generation + 1 WHERE name = 'extensions'"); // another connection's change
    authenticateExtension(ctx, input(), counting);
    expect(verifies).toBe(5); // a new generation: the token verified again, then the request
  });

  test("every table the cache depends on carries its triggers (a migration rebuilding one must recreate them)", () => {
    node = bootTestApp();
    const triggers = node.db.$client.query<{ name: string }, []>("SELECT name FROM sqlite_master WHERE type = 'trigger' AND name LIKE '%_ext_generation_%' ORDER BY name").all();
    const expected = ["agent_keys", "extension_installations", "marketplace_extensions"].flatMap((t) => ["delete", "insert", "update"].map((op) => `${t}_ext_generation_${op}`));
    expect(triggers.map((t) => t.name)).toEqual(expected);
  });
});
