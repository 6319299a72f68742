import { afterEach, describe, expect, test } from "bun:test";
import { bootTestApp, type TestNode } from "../helpers/boot.ts";
import { acmeKey, acmeManifest, FULL_GRANT, installAcme, manifestHash } from "../helpers/extensions.ts";
import { asOwner } from "../helpers/owner.ts";

let node: TestNode;
afterEach(() => node?.close());

function install(body: Record<string, unknown>) {
  return asOwner(node, "/api/svc/extensions/install", { body });
}

describe("installing an extension", () => {
  test("installs inline: 201 with the installation, a token whose payload carries SPEC's fields, and a listed installation", async () => {
    node = bootTestApp();
    const { installationId, token, body } = await installAcme(node);
    expect(installationId).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(body.installation).toMatchObject({ extensionId: "com.acme.keepintouch", status: "active", maxAutonomyTier: "transactional", layers: ["inner", "active"] });
    const payload = JSON.parse(Buffer.from(token.split(".")[0]!, "base64url").toString());
    expect(Object.keys(payload).sort()).toEqual(["expiresAt", "extensionId", "installationId", "issuedAt", "layers", "maxAutonomyTier", "ownerTulpaId", "permissions", "publicKeyMultibase", "tokenVersion"]);
    expect(payload).toMatchObject({ installationId, ownerTulpaId: node.agentId, publicKeyMultibase: acmeKey(0).multibase });
    expect(Date.parse(payload.expiresAt) - Date.parse(payload.issuedAt)).toBe(4 * 3600_000);
    const list = (await (await asOwner(node, "/api/svc/extensions")).json()) as { installations: Array<{ installationId: string }> };
    expect(list.installations.map((i) => i.installationId)).toEqual([installationId]);
    expect((await asOwner(node, `/api/svc/extensions/${installationId}`)).status).toBe(200);
    expect((await asOwner(node, "/api/svc/extensions/nope")).status).toBe(404);
  });

  test("the manifest is checked member by member: 400 naming the member", async () => {
    node = bootTestApp();
    const cases: Array<[Record<string, unknown>, string]> = [
      [acmeManifest({ manifestVersion: 2 }), "manifest.manifestVersion"],
      [acmeManifest({ id: "Acme" }), "manifest.id"],
      [acmeManifest({ keys: [{ keyId: "k", algorithm: "Ed25519", publicKeyMultibase: "z123", status: "active" }] }), "manifest.keys[0].publicKeyMultibase"],
      [acmeManifest({ keys: [{ keyId: "k", algorithm: "Ed25519", publicKeyMultibase: acmeKey(0).multibase, status: "retired" }] }), "manifest.keys"],
      [acmeManifest({ permissions: [{ name: "root", required: true, reason: "because I want it all" }] }), "manifest.permissions[0].name"],
      [acmeManifest({ permissions: [{ name: "profile:read", required: true, reason: "short" }] }), "manifest.permissions[0].reason"],
      [acmeManifest({ surprise: true }), "manifest.surprise"],
      [acmeManifest({ publisher: { name: "Acme", domain: "example.com" } }), "manifest.publisher.domain"],
      [acmeManifest({ layers: undefined }), "manifest.layers"],
      [acmeManifest({ intents: undefined }), "manifest.intents"],
      [acmeManifest({ links: undefined }), "manifest.links.privacyPolicy"],
      [acmeManifest({ description: "x".repeat(40_000) }), "manifest: larger than"],
    ];
    for (const [manifest, member] of cases) {
      const res = await install({ source: "inline", manifest, manifestHash: manifestHash(manifest), grant: FULL_GRANT });
      const body = (await res.json()) as { error: string; message: string };
      expect([res.status, body.error, body.message.startsWith(member)]).toEqual([400, "invalid_input", true]);
    }
  });

  test("the grant is a subset of the manifest: 422 with the rule's code", async () => {
    node = bootTestApp();
    const manifest = acmeManifest();
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ permissions: ["layers:read"], layers: ["inner"] }, "required_permission_missing"],
      [{ permissions: ["connections:list", "graph:read:bridges"], layers: ["inner"] }, "permission_not_requested"],
      [{ permissions: ["connections:list"], layers: ["known"] }, "layer_not_requested"],
      [{ permissions: ["connections:list"], layers: ["inner"], maxAutonomyTier: "personal" }, "tier_above_manifest"],
    ];
    for (const [grant, code] of cases) {
      const res = await install({ source: "inline", manifest, manifestHash: manifestHash(manifest), grant });
      expect([res.status, ((await res.json()) as { error: string }).error]).toEqual([422, code]);
    }
  });

  test("the hash pins the manifest (409 manifest_changed); a second install is 409 already_installed; a missing manifest is 400", async () => {
    node = bootTestApp();
    const manifest = acmeManifest();
    const changed = await install({ source: "inline", manifest: { ...manifest, version: "1.0.1" }, manifestHash: manifestHash(manifest), grant: FULL_GRANT });
    expect([changed.status, ((await changed.json()) as { error: string }).error]).toEqual([409, "manifest_changed"]);
    const missing = await install({ source: "inline", manifestHash: manifestHash(manifest), grant: FULL_GRANT });
    expect(missing.status).toBe(400);
    await installAcme(node);
    const again = await install({ source: "inline", manifest, manifestHash: manifestHash(manifest), grant: FULL_GRANT });
    expect([again.status, ((await again.json()) as { error: string }).error]).toEqual([409, "already_installed"]);
  });

  test("hostile bodies: wrong types, unknown source, bad hash, too many permissions answer 400", async () => {
    node = bootTestApp();
    const manifest = acmeManifest();
    const bodies: unknown[] = [
      { source: "marketplace", manifest, manifestHash: manifestHash(manifest), grant: FULL_GRANT },
      { source: "inline", manifest, manifestHash: "md5:abc", grant: FULL_GRANT },
      { source: "inline", manifest: [], manifestHash: manifestHash(manifest), grant: FULL_GRANT },
      { source: "inline", manifest, manifestHash: manifestHash(manifest), grant: { permissions: "all", layers: [] } },
      { source: "inline", manifest, manifestHash: manifestHash(manifest), grant: { permissions: Array(17).fill("x"), layers: [] } },
      { source: "inline", manifest, manifestHash: manifestHash(manifest), grant: FULL_GRANT, ttlHours: 25 },
    ];
    for (const body of bodies) expect((await install(body as Record<string, unknown>)).status).toBe(400);
  });

  test("uninstall keeps the row (status uninstalled) and lets the extension be installed again", async () => {
    node = bootTestApp();
    const { installationId } = await installAcme(node);
    const res = await asOwner(node, `/api/svc/extensions/${installationId}`, { method: "DELETE" });
    expect(((await res.json()) as { status: string }).status).toBe("uninstalled");
    const again = await installAcme(node);
    expect(again.installationId).not.toBe(installationId);
  });
});

describe("installing from a URL", () => {
  test("the manifest is fetched through the SSRF gate and pinned by its hash; unreachable, non-JSON and changed manifests are refused", async () => {
    const { testTls } = await import("../helpers/tls.ts");
    const manifest = acmeManifest();
    let served: string = JSON.stringify(manifest);
    const server = Bun.serve({ port: 0, hostname: "127.0.0.1", tls: testTls(), fetch: (req) => (new URL(req.url).pathname === "/acme.json" ? new Response(served, { headers: { "content-type": "application/json" } }) : new Response("no", { status: 404 })) });
    try {
      node = bootTestApp();
      const base = `https://manifests.kith.test:${server.port}`;
      const body = (url: string) => ({ source: "url", manifestUrl: url, manifestHash: manifestHash(manifest), grant: FULL_GRANT });
      const missing = await install(body(`${base}/nope.json`));
      expect([missing.status, ((await missing.json()) as { error: string }).error]).toEqual([422, "manifest_unavailable"]);
      served = "not json";
      expect((await install(body(`${base}/acme.json`))).status).toBe(422);
      served = JSON.stringify({ ...manifest, version: "9.9.9" });
      expect((await install(body(`${base}/acme.json`))).status).toBe(409);
      served = JSON.stringify(manifest);
      const ok = await install(body(`${base}/acme.json`));
      expect([ok.status, ((await ok.json()) as { installation: { source: string } }).installation.source]).toEqual([201, "url"]);
    } finally {
      server.stop(true);
    }
  });

  test("a manifest URL must be https (plain http only where private peers are allowed, as in tests)", async () => {
    node = bootTestApp();
    node.collaborators.peers.allowPrivatePeers = false;
    const res = await install({ source: "url", manifestUrl: "http://127.0.0.1:9/acme.json", manifestHash: manifestHash(acmeManifest()), grant: FULL_GRANT });
    expect(res.status).toBe(400);
  });
});

describe("the owner's other extension routes refuse what they must", () => {
  test("PUT permissions, update, accept-update and DELETE: 404 unknown, 409 uninstalled or nothing pending, 422 outside the manifest, 409/422 for a wrong manifest", async () => {
    node = bootTestApp();
    const { installationId } = await installAcme(node);
    const code = async (res: Response) => [res.status, ((await res.json()) as { error: string }).error];
    const put = (id: string, grant: unknown) => asOwner(node, `/api/svc/extensions/${id}/permissions`, { method: "PUT", body: grant });
    const update = (id: string, manifest: Record<string, unknown>, hash = manifestHash(manifest)) => asOwner(node, `/api/svc/extensions/${id}/update`, { body: { source: "inline", manifest, manifestHash: hash } });
    expect(await code(await put("nope", { permissions: ["connections:list"], layers: [] }))).toEqual([404, "not_found"]);
    expect(await code(await put(installationId, { permissions: ["connections:list", "graph:read:bridges"], layers: [] }))).toEqual([422, "permission_not_requested"]);
    expect(await code(await put(installationId, { permissions: ["profile:read"], layers: [] }))).toEqual([422, "required_permission_missing"]);
    expect(await code(await put(installationId, { permissions: ["connections:list"], layers: ["known"] }))).toEqual([422, "layer_not_requested"]);
    expect(await code(await put(installationId, { permissions: ["connections:list"], layers: [], maxAutonomyTier: "personal" }))).toEqual([422, "tier_above_manifest"]);
    expect((await put(installationId, { permissions: "all" })).status).toBe(400);
    expect(await code(await update("nope", acmeManifest({ version: "1.0.1" })))).toEqual([404, "not_found"]);
    expect(await code(await update(installationId, acmeManifest({ version: "1.0.1" }), manifestHash(acmeManifest())))).toEqual([409, "manifest_changed"]);
    expect(await code(await update(installationId, acmeManifest({ id: "com.acme.other", version: "1.0.1" })))).toEqual([422, "extension_mismatch"]);
    expect(await code(await update(installationId, acmeManifest({ version: "x" })))).toEqual([400, "invalid_input"]);
    expect(await code(await asOwner(node, "/api/svc/extensions/nope/accept-update", { body: {} }))).toEqual([404, "not_found"]);
    expect(await code(await asOwner(node, "/api/svc/extensions/nope", { method: "DELETE" }))).toEqual([404, "not_found"]);
    await asOwner(node, `/api/svc/extensions/${installationId}`, { method: "DELETE" });
    expect(await code(await put(installationId, { permissions: ["connections:list"], layers: [] }))).toEqual([409, "conflict"]);
    expect(await code(await update(installationId, acmeManifest({ version: "1.0.1" })))).toEqual([409, "conflict"]);
    expect((await asOwner(node, `/api/svc/extensions/${installationId}`, { method: "DELETE" })).status).toBe(200); // repeating it answers the same view
    for (const path of ["/api/svc/extensions", `/api/svc/extensions/${installationId}`]) expect((await node.request(path)).status).toBe(401);
  });
});
