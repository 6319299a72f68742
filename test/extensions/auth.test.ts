import { afterEach, describe, expect, test } from "bun:test";
import { connections } from "../../src/db/schema/index.ts";
import { ed25519Sign } from "../../src/ink/index.ts";
import { EXT_LIMITS } from "../../src/http/plugins/extension-auth.ts";
import { rotateSigningKey } from "../../src/domain/identity/rotate-signing-key.ts";
import { bootTestApp, type TestNode } from "../helpers/boot.ts";
import { acmeKey, acmeManifest, extRequest, FULL_GRANT, installAcme, manifestHash, signExtensionRequest } from "../helpers/extensions.ts";
import { asOwner } from "../helpers/owner.ts";
import { seed } from "../helpers/personas.ts";

let node: TestNode;
afterEach(() => node?.close());

async function errorOf(res: Response): Promise<[number, string]> {
  return [res.status, ((await res.json()) as { error: string }).error];
}

function addContact(n: TestNode, id: string, layer: string, status: "connected" | "contact" = "connected") {
  const now = n.clock.now();
  n.db.insert(connections).values({ id, principal: `key:${id}`, agentId: `svc:${id}`, handle: id, displayName: id, status, initiatedBy: "us", layer: layer as "inner", createdAt: now, updatedAt: now }).run();
}

/** A token signed by a key the node does not hold, with the same payload shape. */
function forged(token: string): string {
  const [payload] = token.split(".");
  const text = Buffer.from(payload!, "base64url").toString();
  const sig = ed25519Sign(new TextEncoder().encode(`kith/delegation-token/1\n${text}`), seed("mallory", "agent"));
  return `${payload}.${Buffer.from(sig).toString("base64url")}`;
}

describe("the seven checks, each with its own 401", () => {
  test("a valid request passes all seven and answers 200", async () => {
    node = bootTestApp();
    const { token, installationId } = await installAcme(node);
    const res = await extRequest(node, token, "GET", "/ext/v1/identity");
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ agentId: node.agentId, ownerTulpaId: node.agentId, installationId, extensionId: "com.acme.keepintouch" });
  });

  test("1 token_invalid: missing, malformed, forged, tampered payload", async () => {
    node = bootTestApp();
    const { token } = await installAcme(node);
    const [payload, sig] = token.split(".");
    const tampered = `${Buffer.from(Buffer.from(payload!, "base64url").toString().replace('"transactional"', '"personal"')).toString("base64url")}.${sig}`;
    for (const t of [null, "x y", forged(token), tampered, `${payload}.${"A".repeat(86)}`]) {
      const res = await extRequest(node, t, "GET", "/ext/v1/identity", t === "x y" ? { headers: { authorization: "Basic abc" } } : {});
      expect(await errorOf(res)).toEqual([401, "token_invalid"]);
      expect(res.headers.get("www-authenticate")).toContain("token_invalid");
    }
  });

  test("1 token_invalid: a token signed by a key that is no longer active (rotation invalidates tokens)", async () => {
    node = bootTestApp();
    const { token } = await installAcme(node);
    rotateSigningKey(node.ctx()); // what `kith keys rotate` does
    expect(await errorOf(await extRequest(node, token, "GET", "/ext/v1/identity"))).toEqual([401, "token_invalid"]);
  });

  test("2 token_expired: at expiresAt and after", async () => {
    node = bootTestApp();
    const { token } = await installAcme(node);
    node.clock.advance(4 * 3600_000);
    expect(await errorOf(await extRequest(node, token, "GET", "/ext/v1/identity"))).toEqual([401, "token_expired"]);
  });

  test("3 token_revoked: a token replaced by a renewal or a grant change", async () => {
    node = bootTestApp();
    const { token, installationId } = await installAcme(node);
    const put = await asOwner(node, `/api/svc/extensions/${installationId}/permissions`, { method: "PUT", body: { permissions: ["connections:list"], layers: ["inner"] } });
    expect(put.status).toBe(200);
    expect(await errorOf(await extRequest(node, token, "GET", "/ext/v1/identity"))).toEqual([401, "token_revoked"]);
    const fresh = ((await put.json()) as { delegationToken: string }).delegationToken;
    expect((await extRequest(node, fresh, "GET", "/ext/v1/identity")).status).toBe(200);
  });

  test("4 installation_inactive: after uninstall", async () => {
    node = bootTestApp();
    const { token, installationId } = await installAcme(node);
    await asOwner(node, `/api/svc/extensions/${installationId}`, { method: "DELETE" });
    expect(await errorOf(await extRequest(node, token, "GET", "/ext/v1/identity"))).toEqual([401, "installation_inactive"]);
  });

  test("5 timestamp_out_of_window: missing, not strict RFC 3339, 301 s old, 31 s ahead; 300 s old and 30 s ahead pass", async () => {
    node = bootTestApp();
    const { token } = await installAcme(node);
    const now = node.clock.now();
    const at = (ms: number) => new Date(ms).toISOString();
    for (const timestamp of ["", "yesterday", "2026-01-01 00:00:00Z", at(now - 301_000), at(now + 31_000)]) {
      const res = await extRequest(node, token, "GET", "/ext/v1/identity", { timestamp, headers: timestamp === "" ? { "x-request-timestamp": "" } : {} });
      expect(await errorOf(res)).toEqual([401, "timestamp_out_of_window"]);
    }
    for (const timestamp of [at(now - 300_000), at(now + 30_000)]) expect((await extRequest(node, token, "GET", "/ext/v1/identity", { timestamp })).status).toBe(200);
  });

  test("6 nonce_replayed: a nonce used twice, even across a restart of the verifier's cache; a malformed one", async () => {
    node = bootTestApp();
    const { token } = await installAcme(node);
    const nonce = crypto.randomUUID();
    expect((await extRequest(node, token, "GET", "/ext/v1/identity", { nonce })).status).toBe(200);
    expect(await errorOf(await extRequest(node, token, "GET", "/ext/v1/identity", { nonce }))).toEqual([401, "nonce_replayed"]);
    expect(await errorOf(await extRequest(node, token, "GET", "/ext/v1/identity", { nonce: "short" }))).toEqual([401, "nonce_replayed"]);
    expect(await errorOf(await extRequest(node, token, "GET", "/ext/v1/identity", { nonce: "a b c d e f g h i j k l" }))).toEqual([401, "nonce_replayed"]);
  });

  test("7 signature_invalid: missing, wrong key, another path, another query, another body, another method", async () => {
    node = bootTestApp();
    const { token } = await installAcme(node);
    const other = seed("mallory", "extension");
    expect(await errorOf(await extRequest(node, token, "GET", "/ext/v1/identity", { secretKey: other }))).toEqual([401, "signature_invalid"]);
    const h = (method: string, target: string, body = "") => signExtensionRequest(method, target, body, { timestamp: new Date(node.clock.now()).toISOString() });
    const send = (headers: Record<string, string>, target: string) => node.request(target, { headers: { authorization: `Bearer ${token}`, ...headers } });
    expect(await errorOf(await send(h("GET", "/ext/v1/profile"), "/ext/v1/identity"))).toEqual([401, "signature_invalid"]);
    expect(await errorOf(await send(h("GET", "/ext/v1/identity?limit=1"), "/ext/v1/identity?limit=2"))).toEqual([401, "signature_invalid"]);
    expect(await errorOf(await send(h("GET", "/ext/v1/identity", "{}"), "/ext/v1/identity"))).toEqual([401, "signature_invalid"]);
    expect(await errorOf(await send(h("POST", "/ext/v1/identity"), "/ext/v1/identity"))).toEqual([401, "signature_invalid"]);
    const { "x-extension-signature": _, ...unsigned } = h("GET", "/ext/v1/identity");
    expect(await errorOf(await send(unsigned, "/ext/v1/identity"))).toEqual([401, "signature_invalid"]);
    expect(await errorOf(await send({ ...unsigned, "x-extension-signature": "!".repeat(86) }, "/ext/v1/identity"))).toEqual([401, "signature_invalid"]);
  });

  test("a request failing several checks reports the earliest, in SPEC's order", async () => {
    node = bootTestApp();
    const { token, installationId } = await installAcme(node);
    const nonce = crypto.randomUUID();
    expect((await extRequest(node, token, "GET", "/ext/v1/identity", { nonce })).status).toBe(200);
    const bad = seed("mallory", "extension");
    const stale = new Date(node.clock.now() - 400_000).toISOString();
    // 6 + 7 → 6; 5 + 6 + 7 → 5
    expect((await errorOf(await extRequest(node, token, "GET", "/ext/v1/identity", { nonce, secretKey: bad })))[1]).toBe("nonce_replayed");
    expect((await errorOf(await extRequest(node, token, "GET", "/ext/v1/identity", { nonce, secretKey: bad, timestamp: stale })))[1]).toBe("timestamp_out_of_window");
    // 4 + 5 + 6 + 7 → 4
    await asOwner(node, `/api/svc/extensions/${installationId}`, { method: "DELETE" });
    expect((await errorOf(await extRequest(node, token, "GET", "/ext/v1/identity", { nonce, secretKey: bad, timestamp: stale })))[1]).toBe("installation_inactive");
    // 2 + 3 + … → 2; 1 + 2 + … → 1
    node.clock.advance(5 * 3600_000);
    expect((await errorOf(await extRequest(node, token, "GET", "/ext/v1/identity", { nonce, secretKey: bad, timestamp: stale })))[1]).toBe("token_expired");
    expect((await errorOf(await extRequest(node, forged(token), "GET", "/ext/v1/identity", { nonce, secretKey: bad, timestamp: stale })))[1]).toBe("token_invalid");
  });
});

describe("permissions and layers", () => {
  test("403 permission_missing names the permission, on every endpoint that needs one", async () => {
    node = bootTestApp();
    const { token } = await installAcme(node, { grant: { permissions: ["connections:list"], layers: ["inner"] } });
    for (const [path, permission] of [["/ext/v1/layers", "layers:read"], ["/ext/v1/layers/x", "layers:read"], ["/ext/v1/profile", "profile:read"]] as const) {
      const res = await extRequest(node, token, "GET", path);
      expect([res.status, await res.json()]).toEqual([403, { error: "permission_missing", message: expect.any(String), required: permission }]);
    }
  });

  test("a contact outside the granted layers is indistinguishable from a missing one; lists and counts leave it out", async () => {
    node = bootTestApp();
    addContact(node, "con_in", "inner");
    addContact(node, "con_act", "active", "contact");
    addContact(node, "con_far", "sympathy");
    const { token } = await installAcme(node);
    const list = (await (await extRequest(node, token, "GET", "/ext/v1/connections")).json()) as { connections: Array<{ contactId: string }>; total: number };
    expect([list.connections.map((c) => c.contactId), list.total]).toEqual([["con_act", "con_in"], 2]);
    const layers = (await (await extRequest(node, token, "GET", "/ext/v1/layers?limit=1&offset=1")).json()) as { assignments: Array<{ contactId: string }>; total: number };
    expect([layers.assignments.map((c) => c.contactId), layers.total]).toEqual([["con_in"], 2]);
    expect((await extRequest(node, token, "GET", "/ext/v1/connections/con_in")).status).toBe(200);
    for (const path of ["/ext/v1/connections/con_far", "/ext/v1/connections/con_none", "/ext/v1/layers/con_far", "/ext/v1/layers/con_none"]) {
      const res = await extRequest(node, token, "GET", path);
      expect([res.status, await res.json()]).toEqual([404, { error: "not_found", message: "contact not found" }]);
    }
  });

  test("narrowing the grant takes effect on the next request (renewed token carries the narrower grant)", async () => {
    node = bootTestApp();
    addContact(node, "con_act", "active");
    const { token, installationId } = await installAcme(node);
    expect((await extRequest(node, token, "GET", "/ext/v1/connections/con_act")).status).toBe(200);
    await asOwner(node, `/api/svc/extensions/${installationId}/permissions`, { method: "PUT", body: { permissions: ["connections:list"], layers: ["inner"] } });
    const renewed = await renew(node, installationId);
    expect(renewed.status).toBe(200);
    const fresh = ((await renewed.json()) as { delegationToken: string }).delegationToken;
    expect((await extRequest(node, fresh, "GET", "/ext/v1/connections/con_act")).status).toBe(404);
    expect((await extRequest(node, fresh, "GET", "/ext/v1/profile")).status).toBe(403);
  });

  test("bad query values answer 400", async () => {
    node = bootTestApp();
    const { token } = await installAcme(node);
    for (const q of ["limit=0", "limit=201", "limit=x", "offset=-1", "limit=1e3"]) expect((await extRequest(node, token, "GET", `/ext/v1/connections?${q}`)).status).toBe(400);
  });
});

function renew(n: TestNode, installationId: string, options: { secretKey?: Uint8Array; nonce?: string; ttlHours?: number } = {}) {
  const body = JSON.stringify({ installationId, ...(options.ttlHours !== undefined ? { ttlHours: options.ttlHours } : {}) });
  const headers = signExtensionRequest("POST", "/ext/v1/token", body, { ...options, timestamp: new Date(n.clock.now()).toISOString() });
  return n.request("/ext/v1/token", { method: "POST", headers: { ...headers, "content-type": "application/json" }, body });
}

describe("token renewal (POST /ext/v1/token)", () => {
  test("the extension renews with its own key; the old token is then revoked", async () => {
    node = bootTestApp();
    const { token, installationId } = await installAcme(node);
    node.clock.advance(60_000);
    const res = await renew(node, installationId);
    expect(res.status).toBe(200);
    const body = (await res.json()) as { delegationToken: string; tokenExpiresAt: string };
    expect(Date.parse(body.tokenExpiresAt)).toBe(node.clock.now() + 4 * 3600_000);
    expect(await errorOf(await extRequest(node, token, "GET", "/ext/v1/identity"))).toEqual([401, "token_revoked"]);
    expect((await extRequest(node, body.delegationToken, "GET", "/ext/v1/identity")).status).toBe(200);
  });

  test("refusals: unknown or uninstalled installation, wrong key, replayed nonce, bad body", async () => {
    node = bootTestApp();
    const { installationId } = await installAcme(node);
    expect(await errorOf(await renew(node, "nope"))).toEqual([401, "installation_inactive"]);
    expect(await errorOf(await renew(node, installationId, { secretKey: seed("mallory", "extension") }))).toEqual([401, "signature_invalid"]);
    const nonce = crypto.randomUUID();
    expect((await renew(node, installationId, { nonce })).status).toBe(200);
    expect(await errorOf(await renew(node, installationId, { nonce }))).toEqual([401, "nonce_replayed"]);
    const bad = await node.request("/ext/v1/token", { method: "POST", headers: { "content-type": "application/json" }, body: '{"installationId": 5}' });
    expect(bad.status).toBe(400);
    const notJson = await node.request("/ext/v1/token", { method: "POST", headers: { "content-type": "text/plain" }, body: "x" });
    expect(notJson.status).toBe(415);
    await asOwner(node, `/api/svc/extensions/${installationId}`, { method: "DELETE" });
    expect(await errorOf(await renew(node, installationId))).toEqual([401, "installation_inactive"]);
  });

  test("a key-only manifest update applies at once; the old key keeps working for 24 h, then not", async () => {
    node = bootTestApp();
    const { installationId } = await installAcme(node);
    const next = acmeManifest({ version: "1.0.1", keys: [{ keyId: "acme-1", algorithm: "Ed25519", publicKeyMultibase: acmeKey(1).multibase, status: "active" }] });
    const up = await asOwner(node, `/api/svc/extensions/${installationId}/update`, { body: { source: "inline", manifest: next, manifestHash: manifestHash(next) } });
    expect([up.status, ((await up.json()) as { status: string }).status]).toEqual([200, "active"]);
    expect((await renew(node, installationId, { secretKey: acmeKey(1).secretKey })).status).toBe(200);
    node.clock.advance(24 * 3600_000);
    expect(await errorOf(await renew(node, installationId))).toEqual([401, "signature_invalid"]);
  });

  test("a key a manifest update dropped signs requests during its grace but cannot renew (nor revoke the new key's token)", async () => {
    node = bootTestApp();
    const { installationId, token } = await installAcme(node);
    const next = acmeManifest({ version: "1.0.1", keys: [{ keyId: "acme-1", algorithm: "Ed25519", publicKeyMultibase: acmeKey(1).multibase, status: "active" }] });
    expect((await asOwner(node, `/api/svc/extensions/${installationId}/update`, { body: { source: "inline", manifest: next, manifestHash: manifestHash(next) } })).status).toBe(200);
    // the token bound to the old key keeps working during the grace
    expect((await extRequest(node, token, "GET", "/ext/v1/identity")).status).toBe(200);
    const fresh = await renew(node, installationId, { secretKey: acmeKey(1).secretKey });
    expect(fresh.status).toBe(200);
    const newToken = ((await fresh.json()) as { delegationToken: string }).delegationToken;
    // the retired key may not renew, so it cannot revoke the new key's token
    expect(await errorOf(await renew(node, installationId))).toEqual([401, "signature_invalid"]);
    expect((await extRequest(node, newToken, "GET", "/ext/v1/identity", { secretKey: acmeKey(1).secretKey })).status).toBe(200);
  });

  test("ttlHours is capped to the manifest's token.ttlHours (default 4), at install and at renewal", async () => {
    node = bootTestApp();
    const { installationId } = await installAcme(node, { manifest: acmeManifest({ token: { ttlHours: 2 } }) });
    for (const [ttlHours, expected] of [[24, 2], [3, 2], [1, 1], [undefined, 2]] as const) {
      const res = await renew(node, installationId, { ttlHours });
      expect(res.status).toBe(200);
      const hours = (Date.parse(((await res.json()) as { tokenExpiresAt: string }).tokenExpiresAt) - node.clock.now()) / 3600_000;
      expect([ttlHours, hours]).toEqual([ttlHours, expected]);
    }
    node.close();
    node = bootTestApp();
    const manifest = acmeManifest();
    const res = await asOwner(node, "/api/svc/extensions/install", { body: { source: "inline", manifest, manifestHash: manifestHash(manifest), grant: FULL_GRANT, ttlHours: 24 } });
    expect(Date.parse(((await res.json()) as { tokenExpiresAt: string }).tokenExpiresAt) - node.clock.now()).toBe(4 * 3600_000);
    const renewed = await renew(node, ((await asOwner(node, "/api/svc/extensions").then((r) => r.json())) as any).installations[0].installationId, { ttlHours: 24 });
    expect(Date.parse(((await renewed.json()) as { tokenExpiresAt: string }).tokenExpiresAt) - node.clock.now()).toBe(4 * 3600_000);
  });

  test("a manifest asking for more waits as pending_update and widens nothing until accepted", async () => {
    node = bootTestApp();
    const { installationId, token } = await installAcme(node, { grant: { permissions: ["connections:list"], layers: ["inner"] } });
    const next = acmeManifest({ version: "2.0.0", layers: { requested: ["inner", "active", "sympathy", "known"], reason: "Now we look at everyone you know" } });
    const up = await asOwner(node, `/api/svc/extensions/${installationId}/update`, { body: { source: "inline", manifest: next, manifestHash: manifestHash(next) } });
    expect(await up.json()).toMatchObject({ status: "pending_update", version: "1.0.0", pendingUpdate: { version: "2.0.0" } });
    expect((await extRequest(node, token, "GET", "/ext/v1/identity")).status).toBe(200);
    const accepted = await asOwner(node, `/api/svc/extensions/${installationId}/accept-update`, { body: {} });
    expect(await accepted.json()).toMatchObject({ status: "active", version: "2.0.0", pendingUpdate: null, layers: ["inner"] });
    expect((await asOwner(node, `/api/svc/extensions/${installationId}/accept-update`, { body: {} })).status).toBe(409);
  });
});

describe("limits and hostile headers", () => {
  test("an unauthenticated caller learns nothing of a route but 401: bad queries, paths and bodies are judged only after the checks", async () => {
    node = bootTestApp();
    const { token } = await installAcme(node);
    for (const path of ["/ext/v1/connections?limit=x", `/ext/v1/connections/${"x".repeat(600)}`, "/ext/v1/events?since=-1", "/ext/v1/audit?limit=9999"]) {
      expect([path, (await node.request(path)).status]).toEqual([path, 401]);
      expect([path, (await extRequest(node, token, "GET", path)).status]).toEqual([path, 400]);
    }
    const post = await node.request("/ext/v1/intents", { method: "POST", headers: { "content-type": "application/json" }, body: '{"to": 5}' });
    expect(post.status).toBe(401);
  });

  test("an installation past 600 requests a minute gets 429 with Retry-After; refused requests are not counted; intents have their own 60", async () => {
    node = bootTestApp();
    const { token, installationId } = await installAcme(node);
    for (let i = 0; i < 5; i++) expect((await extRequest(node, token, "GET", "/ext/v1/identity", { secretKey: seed("mallory", "extension") })).status).toBe(401);
    // 598 requests' worth of the window spent in the same bucket the plugin counts in (what 598 requests would do, without sending them)
    for (let i = 0; i < 598; i++) node.collaborators.limiter.consume("ext", installationId, EXT_LIMITS.requests, node.clock.now());
    expect((await extRequest(node, token, "GET", "/ext/v1/identity")).status).toBe(200);
    expect((await extRequest(node, token, "GET", "/ext/v1/identity")).status).toBe(200); // the 600th: the 5 refused ones were not counted
    const res = await extRequest(node, token, "GET", "/ext/v1/identity");
    expect([res.status, ((await res.json()) as { error: string }).error]).toEqual([429, "rate_limited"]);
    expect(Number(res.headers.get("retry-after"))).toBeGreaterThan(0);
    node.clock.advance(60_000);
    expect((await extRequest(node, token, "GET", "/ext/v1/identity")).status).toBe(200);
    for (let i = 0; i < 60; i++) node.collaborators.limiter.consume("ext-intents", installationId, EXT_LIMITS.intents, node.clock.now());
    const intent = await extRequest(node, token, "POST", "/ext/v1/intents", { body: { to: "con_x", intent: "ping", payload: {} } });
    expect(intent.status).toBe(429);
  });

  test("oversized and odd header values are refused with the check's code, never a 500", async () => {
    node = bootTestApp();
    const { token } = await installAcme(node);
    const cases: Array<[Record<string, string>, string]> = [
      [{ authorization: `Bearer ${"a".repeat(9000)}` }, "token_invalid"],
      [{ authorization: `Bearer ${token} extra` }, "token_invalid"],
      [{ "x-request-nonce": "n".repeat(200) }, "nonce_replayed"],
      [{ "x-request-timestamp": "9".repeat(100) }, "timestamp_out_of_window"],
      [{ "x-extension-signature": "a".repeat(200) }, "signature_invalid"],
    ];
    for (const [headers, code] of cases) expect(await errorOf(await extRequest(node, token, "GET", "/ext/v1/identity", { headers }))).toEqual([401, code]);
  });
});
