import { afterEach, describe, expect, test } from "bun:test";
import { bootNetworkNode, bootTestApp, type TestNode } from "../helpers/boot.ts";
import { eq } from "drizzle-orm";
import { events } from "../../src/db/schema/index.ts";
import { acmeManifest, extRequest, FULL_GRANT, installAcme, manifestHash, signExtensionRequest } from "../helpers/extensions.ts";
import { asOwner } from "../helpers/owner.ts";

const nodes: Array<{ close?: () => void; stop?: () => Promise<void> }> = [];
afterEach(async () => {
  for (const n of nodes.splice(0)) await (n.stop ? n.stop() : n.close?.());
});
function boot(): TestNode {
  const node = bootTestApp();
  nodes.push(node);
  return node;
}

const json = async (res: Response) => [res.status, (await res.json()) as any] as const;
const submit = (node: TestNode, manifest: Record<string, unknown>) => asOwner(node, "/marketplace/submit", { body: { manifest } });
const review = (node: TestNode, id: string, version: string, body: Record<string, unknown>) => asOwner(node, `/api/svc/marketplace/extensions/${id}/versions/${version}/review`, { body });
const search = (node: TestNode, q: string, extra = "") => node.request(`/marketplace/extensions?q=${encodeURIComponent(q)}${extra}`);
const ID = "com.acme.keepintouch";
function renewAs(node: TestNode, installationId: string): Promise<Response> {
  const body = JSON.stringify({ installationId });
  const headers = signExtensionRequest("POST", "/ext/v1/token", body, { timestamp: new Date(node.clock.now()).toISOString() });
  return node.request("/ext/v1/token", { method: "POST", headers: { ...headers, "content-type": "application/json" }, body });
}

describe("marketplace: submit, review, list, search", () => {
  test("submitted → in_review → approved: listed and found by name, summary, publisher and category; details for a consent screen", async () => {
    const node = boot();
    const manifest = acmeManifest({ categories: ["relationships", "crm"], icons: { "128": { url: "https://acme.com/i.png", sha256: "a".repeat(64) } } });
    const [status, submitted] = await json(await submit(node, manifest));
    expect([status, submitted]).toEqual([201, { extensionId: ID, version: "1.0.0", manifestHash: manifestHash(manifest), reviewState: "submitted" }]);
    expect(((await json(await search(node, "keep")))[1]).results).toEqual([]);
    expect((await node.request(`/marketplace/extensions/${ID}`)).status).toBe(404);
    const queue = (await json(await asOwner(node, "/api/svc/marketplace/submissions?state=submitted")))[1];
    expect(queue.submissions.map((s: any) => `${s.extensionId}@${s.version}`)).toEqual([`${ID}@1.0.0`]);
    expect((await json(await review(node, ID, "1.0.0", { decision: "start" })))[1].reviewState).toBe("in_review");
    expect((await json(await review(node, ID, "1.0.0", { decision: "approve" })))[1].reviewState).toBe("approved");
    for (const q of ["keep", "Reminds talked", "acme", "crm", "RELATIONSHIPS"]) {
      const [s, body] = await json(await search(node, q));
      expect([q, s, body.results.map((r: any) => r.extensionId)]).toEqual([q, 200, [ID]]);
    }
    expect((await json(await search(node, "nothing here")))[1].results).toEqual([]);
    const [ds, details] = await json(await node.request(`/marketplace/extensions/${ID}`));
    expect(ds).toBe(200);
    expect(details).toMatchObject({
      extensionId: ID,
      name: "Keep in touch",
      icon128: "https://acme.com/i.png",
      manifestHash: manifestHash(manifest),
      latestVersion: "1.0.0",
      listingState: "listed",
      publisher: { name: "Acme", domain: "acme.com", verified: false },
      versions: [{ version: "1.0.0", reviewState: "approved" }],
      reviewStats: { count: 0, average: null, distribution: { "1": 0, "2": 0, "3": 0, "4": 0, "5": 0 } },
      maxAutonomyTier: "social",
      intents: ["ping", "ask"],
    });
    expect(details.manifest).toEqual(manifest);
    expect(details.permissionsSummary[0]).toEqual({ name: "connections:list", required: true, reason: "To list the people you keep in touch with", title: "See your contacts in the chosen circles" });
  });

  test("precise refusals: an invalid manifest names its member, a taken version is 409 version_exists, moves out of order are 409 invalid_transition", async () => {
    const node = boot();
    const [s1, b1] = await json(await submit(node, acmeManifest({ permissions: [{ name: "root", required: true, reason: "because I want it all" }] })));
    expect([s1, b1.error, b1.message.startsWith("manifest.permissions[0].name")]).toEqual([400, "invalid_input", true]);
    const [s2, b2] = await json(await submit(node, acmeManifest({ publisher: { name: "Acme", domain: "example.com" } })));
    expect([s2, b2.message.startsWith("manifest.publisher.domain")]).toEqual([400, true]);
    expect((await asOwner(node, "/marketplace/submit", { body: { manifest: "x" } })).status).toBe(400);
    expect((await asOwner(node, "/marketplace/submit", { body: {} })).status).toBe(400);
    expect((await submit(node, acmeManifest())).status).toBe(201);
    expect((await json(await submit(node, acmeManifest())))[1].error).toBe("version_exists");
    const [rs, rejected] = await json(await review(node, ID, "1.0.0", { decision: "reject", reasons: [{ code: "privacy_policy_unreachable", message: "The privacy policy answers 404" }] }));
    expect([rs, rejected.reviewState, rejected.reasons[0].code]).toEqual([200, "rejected", "privacy_policy_unreachable"]);
    expect((await json(await review(node, ID, "1.0.0", { decision: "approve" })))[1]).toMatchObject({ error: "invalid_transition", reviewState: "rejected" });
    expect((await review(node, ID, "1.0.0", { decision: "reject", reasons: [] })).status).toBe(400);
    expect((await review(node, ID, "9.9.9", { decision: "approve" })).status).toBe(404);
    // A rejected version may be submitted again (fixed), and is back in the queue; withdrawn, it is final.
    expect((await json(await submit(node, acmeManifest())))[1].reviewState).toBe("submitted");
    expect((await json(await review(node, ID, "1.0.0", { decision: "withdraw" })))[1].reviewState).toBe("withdrawn");
    expect((await json(await review(node, ID, "1.0.0", { decision: "start" })))[1]).toMatchObject({ error: "invalid_transition", reviewState: "withdrawn" });
    expect((await node.request("/marketplace/submit", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ manifest: acmeManifest() }) })).status).toBe(401);
  });

  test("autoApprove (a personal node): a submission is approved and listed at once; a newer version becomes the latest", async () => {
    const node = boot();
    expect((await json(await asOwner(node, "/api/svc/marketplace/settings", { method: "PUT", body: { autoApprove: true } })))[1]).toEqual({ autoApprove: true });
    expect((await json(await submit(node, acmeManifest())))[1].reviewState).toBe("approved");
    expect((await json(await submit(node, acmeManifest({ version: "1.1.0", name: "Keep in touch Pro" }))))[1].reviewState).toBe("approved");
    const [, results] = await json(await search(node, "pro"));
    expect(results.results.map((r: any) => [r.extensionId, r.latestVersion])).toEqual([[ID, "1.1.0"]]);
    expect((await asOwner(node, "/api/svc/marketplace/settings", { method: "PUT", body: { autoApprove: "yes" } })).status).toBe(400);
  });

  test("listing states: unlisted is installable but not searchable; delisted and suspended refuse new installs", async () => {
    const node = boot();
    await asOwner(node, "/api/svc/marketplace/settings", { method: "PUT", body: { autoApprove: true } });
    await submit(node, acmeManifest());
    const listing = (state: string) => asOwner(node, `/api/svc/marketplace/extensions/${ID}/listing`, { method: "PUT", body: { listingState: state } });
    expect((await json(await listing("unlisted")))[1]).toEqual({ extensionId: ID, listingState: "unlisted" });
    expect((await json(await search(node, "keep")))[1].results).toEqual([]);
    expect((await node.request(`/marketplace/extensions/${ID}`)).status).toBe(200);
    for (const state of ["delisted", "suspended"]) {
      await listing(state);
      expect((await node.request(`/marketplace/extensions/${ID}`)).status).toBe(404);
      const res = await asOwner(node, "/api/svc/extensions/install", { body: { source: "marketplace", extensionId: ID, manifestHash: manifestHash(acmeManifest()), grant: FULL_GRANT } });
      expect(res.status).toBe(404);
    }
    expect((await listing("everywhere")).status).toBe(400);
    expect((await asOwner(node, "/api/svc/marketplace/extensions/com.nobody.x/listing", { method: "PUT", body: { listingState: "listed" } })).status).toBe(404);
    await submit(node, { ...acmeManifest(), id: "com.acme.other" }).then(async (r) => expect(r.status).toBe(201));
  });

  test("suspension reaches existing installations: requests and renewals 401 installation_inactive, the owner sees it, lifting restores", async () => {
    const node = boot();
    await asOwner(node, "/api/svc/marketplace/settings", { method: "PUT", body: { autoApprove: true } });
    await submit(node, acmeManifest());
    const { installationId, token } = await installAcme(node);
    const other = await installAcme(node, { manifest: acmeManifest({ id: "com.acme.other" }) });
    const listing = (state: string) => asOwner(node, `/api/svc/marketplace/extensions/${ID}/listing`, { method: "PUT", body: { listingState: state } });
    const owned = async () => ((await json(await asOwner(node, "/api/svc/extensions")))[1].installations as any[]).map((i) => [i.extensionId, i.suspended]).sort();
    const updates = () => node.db.select().from(events).where(eq(events.type, "installation.updated")).all().map((e) => [e.subjectId, JSON.parse(e.dataJson!).suspended]);
    expect((await extRequest(node, token, "GET", "/ext/v1/identity")).status).toBe(200);
    await listing("delisted"); // delisted: existing installs keep working, nothing to tell
    expect((await extRequest(node, token, "GET", "/ext/v1/identity")).status).toBe(200);
    expect(updates()).toEqual([]);
    expect((await listing("suspended")).status).toBe(200);
    for (const res of [await extRequest(node, token, "GET", "/ext/v1/identity"), await extRequest(node, token, "GET", "/ext/v1/events"), await renewAs(node, installationId)]) {
      const body = (await res.json()) as any;
      expect([res.status, body.error, body.message]).toEqual([401, "installation_inactive", expect.stringContaining("suspended")]);
    }
    expect((await extRequest(node, other.token, "GET", "/ext/v1/identity")).status).toBe(200); // another extension is untouched
    expect(await owned()).toEqual([["com.acme.keepintouch", true], ["com.acme.other", false]]);
    expect((await json(await asOwner(node, `/api/svc/extensions/${installationId}`)))[1].suspended).toBe(true);
    expect(updates()).toEqual([[installationId, true]]);
    await listing("suspended"); // no change, no event
    expect(updates()).toEqual([[installationId, true]]);
    await listing("listed");
    expect(updates()).toEqual([[installationId, true], [installationId, false]]);
    expect(await owned()).toEqual([["com.acme.keepintouch", false], ["com.acme.other", false]]);
    expect((await extRequest(node, token, "GET", "/ext/v1/identity")).status).toBe(200);
    const feed = (await json(await extRequest(node, token, "GET", "/ext/v1/events?since=0")))[1];
    expect(feed.events.filter((e: any) => e.kind === "installation.updated").map((e: any) => e.data.suspended)).toEqual([true, false]);
    expect((await renewAs(node, installationId)).status).toBe(200);
  });

  test("the query is checked: q of 2+ characters with a word, limit 1-50; search is limited per IP", async () => {
    const node = boot();
    for (const target of ["/marketplace/extensions", "/marketplace/extensions?q=a", "/marketplace/extensions?q=%21%21", "/marketplace/extensions?q=keep&limit=51", "/marketplace/extensions?q=keep&limit=0", "/marketplace/extensions?q=keep&limit=x"]) {
      expect([target, (await node.request(target)).status]).toEqual([target, 400]);
    }
    let last = 0;
    for (let i = 0; i < 31; i++) last = (await node.request("/marketplace/extensions?q=keep", { headers: { "x-test-remote-address": "198.51.100.7" } })).status;
    expect(last).toBe(429);
  });
});

describe("marketplace: installs and ratings", () => {
  test("install from this node's marketplace with a narrower grant than requested, pinned by the hash the details showed", async () => {
    const node = boot();
    await asOwner(node, "/api/svc/marketplace/settings", { method: "PUT", body: { autoApprove: true } });
    await submit(node, acmeManifest());
    const details = (await json(await node.request(`/marketplace/extensions/${ID}`)))[1];
    const narrow = { permissions: ["connections:list", "intents:send"], layers: ["inner"], maxAutonomyTier: "transactional" };
    const wrong = await asOwner(node, "/api/svc/extensions/install", { body: { source: "marketplace", extensionId: ID, manifestHash: manifestHash(acmeManifest({ version: "2.0.0" })), grant: narrow } });
    expect([wrong.status, ((await wrong.json()) as any).error]).toEqual([409, "manifest_changed"]);
    const [s, installed] = await json(await asOwner(node, "/api/svc/extensions/install", { body: { source: "marketplace", extensionId: ID, manifestHash: details.manifestHash, grant: narrow } }));
    expect(s).toBe(201);
    expect(installed.installation).toMatchObject({ source: "marketplace", extensionId: ID, permissions: ["connections:list", "intents:send"], layers: ["inner"] });
    expect((await asOwner(node, "/api/svc/extensions/install", { body: { source: "marketplace", manifestHash: details.manifestHash, grant: narrow } })).status).toBe(400);
  });

  test("ratings: only after installing, once per agent; the stats follow", async () => {
    const node = boot();
    await asOwner(node, "/api/svc/marketplace/settings", { method: "PUT", body: { autoApprove: true } });
    await submit(node, acmeManifest());
    const rate = (body: unknown) => asOwner(node, `/api/svc/marketplace/extensions/${ID}/reviews`, { body });
    expect((await json(await rate({ rating: 4 })))[1].error).toBe("not_installed");
    await asOwner(node, "/api/svc/extensions/install", { body: { source: "marketplace", extensionId: ID, manifestHash: manifestHash(acmeManifest()), grant: FULL_GRANT } });
    for (const bad of [{ rating: 0 }, { rating: 6 }, { rating: 4.5 }, { rating: "5" }, { rating: 5, comment: "x".repeat(1001) }, { rating: 5, extra: 1 }]) expect((await rate(bad)).status).toBe(400);
    const [s, rated] = await json(await rate({ rating: 4, comment: "Useful" }));
    expect([s, rated.reviewer, rated.reviewStats]).toEqual([201, node.agentId, { count: 1, average: 4, distribution: { "1": 0, "2": 0, "3": 0, "4": 1, "5": 0 } }]);
    expect((await json(await rate({ rating: 5 })))[1].error).toBe("already_reviewed");
    expect((await json(await node.request(`/marketplace/extensions/${ID}`)))[1].reviewStats.average).toBe(4);
    expect((await json(await search(node, "keep")))[1].results[0].reviewStats).toEqual({ count: 1, average: 4 });
  });

  test("install from another node's marketplace by URL: fetched through the SSRF gate, pinned by hash", async () => {
    const market = await bootNetworkNode({ name: "market" });
    nodes.push(market);
    const home = await bootNetworkNode({ name: "home", persona: "bob" });
    nodes.push(home);
    await asOwner(market, "/api/svc/marketplace/settings", { method: "PUT", body: { autoApprove: true } });
    await submit(market, acmeManifest());
    const hash = manifestHash(acmeManifest());
    const body = (extra: Record<string, unknown>) => ({ body: { source: "marketplace", extensionId: ID, manifestHash: hash, grant: FULL_GRANT, ...extra } });
    const missing = await asOwner(home, "/api/svc/extensions/install", body({ marketplaceUrl: market.url, extensionId: "com.acme.nothing" }));
    expect([missing.status, ((await missing.json()) as any).error]).toEqual([422, "manifest_unavailable"]);
    const version = await asOwner(home, "/api/svc/extensions/install", body({ marketplaceUrl: market.url, version: "0.9.0" }));
    expect(version.status).toBe(422);
    const [s, installed] = await json(await asOwner(home, "/api/svc/extensions/install", body({ marketplaceUrl: `${market.url}/` })));
    expect([s, installed.installation.source, installed.installation.manifestHash]).toEqual([201, "marketplace", hash]);
    const local = await asOwner(home, "/api/svc/extensions/install", body({}));
    expect(local.status).toBe(404);
  });
});
