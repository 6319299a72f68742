import { afterEach, describe, expect, test } from "bun:test";
import { directoryPushes } from "../../src/db/schema/index.ts";
import { validateAgentCard } from "../../src/ink/index.ts";
import { bootTestApp, type TestNode } from "../helpers/boot.ts";
import { asOwner } from "../helpers/owner.ts";
import { json } from "../helpers/process.ts";

let node: TestNode;
afterEach(() => node?.close());

const DIRECTORIES = ["https://dir-one.example", "https://dir-two.example/ink/v1/svc%3Az6MkabcDEF/agent.json"];
const card = async () => {
  const res = await node.request(`/ink/v1/${encodeURIComponent(node.agentId!)}/agent.json`);
  expect(res.status).toBe(200);
  return json(res);
};
const state = async () => json(await asOwner(node, "/api/svc/discovery"));

describe("owner publication", () => {
  test("before publishing: no descriptor, not searchable, state unpublished with every directory at none", async () => {
    node = bootTestApp({ discovery: { directories: DIRECTORIES } });
    const c = await card();
    expect(c.discovery).toBeUndefined();
    expect(c.profileSnapshot).toBeUndefined();
    expect(await state()).toMatchObject({ agentId: node.agentId, status: "unpublished", published: false, discovery: null, listing: null, directories: [
      { directory: DIRECTORIES[0], state: "none", action: null, attempts: 0 },
      { directory: DIRECTORIES[1], state: "none", action: null, attempts: 0 },
    ] });
    expect((await json(await node.request("/discover?q=alice"))).results).toEqual([]);
  });

  test("publish: listed from the public snapshot, the card gets an INK-valid descriptor and the public snapshot, a push is queued per directory", async () => {
    node = bootTestApp({ discovery: { directories: DIRECTORIES } });
    const res = await asOwner(node, "/api/svc/discovery/publish", { body: { tags: ["rust", "climbing", "rust"], location: "Berlin", roles: ["engineer"] } });
    expect(res.status).toBe(200);
    const published = await json(res);
    const at = new Date(node.clock.now()).toISOString();
    expect(published).toMatchObject({
      status: "listed", published: true, publishedAt: at, tags: ["rust", "climbing"], location: "Berlin", roles: ["engineer"],
      discovery: { enabled: true, scope: "public", tags: ["rust", "climbing"], queryable: true, updatedAt: at, location: "Berlin", roles: ["engineer"] },
      listing: { agentId: node.agentId, handle: "alice", displayName: "Alice Example", headline: "Alice Example", bio: "Alice Example", source: "self", cardUrl: node.cardUrl },
    });
    expect(published.directories.map((d: { state: string; action: string }) => [d.state, d.action])).toEqual([["queued", "publish"], ["queued", "publish"]]);
    expect(published.directories[0].nextAttemptAt).toBe(at);

    const c = await card();
    expect(validateAgentCard(c)).toMatchObject({ ok: true });
    expect(c.discovery).toEqual(published.discovery);
    expect(c.profileSnapshot).toEqual({ headline: "Alice Example", skills: [], interests: [], openTo: [], availability: { timezone: "Europe/Paris" } });
    const alias = await json(await node.request("/.well-known/ink/agent.json"));
    expect(alias).toEqual(c);

    const found = (await json(await node.request("/discover?q=ali"))).results;
    expect(found).toHaveLength(1);
    expect(found[0]).toMatchObject({ agentId: node.agentId, handle: "alice", source: "self", tags: ["rust", "climbing"] });
    expect((await json(await node.request("/discover?q=alice&skills=Rust&roles=engineer&location=berlin"))).results).toHaveLength(1);
  });

  test("publishing again keeps omitted members, null clears the location; the body is optional", async () => {
    node = bootTestApp();
    await asOwner(node, "/api/svc/discovery/publish", { body: { tags: ["a"], location: "Oslo", roles: ["r"] } });
    expect(await json(await asOwner(node, "/api/svc/discovery/publish", { body: { tags: ["b"] } }))).toMatchObject({ tags: ["b"], location: "Oslo", roles: ["r"] });
    expect(await json(await asOwner(node, "/api/svc/discovery/publish", { body: { location: null } }))).toMatchObject({ tags: ["b"], location: null, roles: ["r"] });
    const empty = await asOwner(node, "/api/svc/discovery/publish", { method: "POST" });
    expect(empty.status).toBe(200);
    expect(await json(empty)).toMatchObject({ status: "listed", tags: ["b"] });
  });

  test("unpublish: gone from search, descriptor enabled: false (still INK-valid), no snapshot on the card, supersedes a queued publish", async () => {
    node = bootTestApp({ discovery: { directories: DIRECTORIES } });
    await asOwner(node, "/api/svc/discovery/publish", { body: { tags: ["rust"] } });
    const before = node.db.select().from(directoryPushes).all();
    node.clock.advance(1000);
    const res = await asOwner(node, "/api/svc/discovery/unpublish", { method: "POST" });
    expect(res.status).toBe(200);
    const s = await json(res);
    expect(s).toMatchObject({ status: "delisted", published: false, publishedAt: null, listing: null, discovery: { enabled: false, scope: "public" } });
    expect(s.directories.map((d: { state: string; action: string }) => [d.state, d.action])).toEqual([["queued", "unpublish"], ["queued", "unpublish"]]);
    const after = node.db.select().from(directoryPushes).all();
    expect(after).toHaveLength(2); // one row per directory: the unpublish replaced the queued publish
    expect(after.map((r) => r.id)).not.toEqual(before.map((r) => r.id));

    const c = await card();
    expect(validateAgentCard(c)).toMatchObject({ ok: true });
    expect(c.discovery).toEqual({ enabled: false, scope: "public", updatedAt: new Date(node.clock.now()).toISOString() });
    expect(c.profileSnapshot).toBeUndefined();
    expect((await json(await node.request("/discover?q=alice"))).results).toEqual([]);
    // unpublishing twice is fine; publishing again lists the agent again
    expect((await asOwner(node, "/api/svc/discovery/unpublish", { method: "POST" })).status).toBe(200);
    expect(await json(await asOwner(node, "/api/svc/discovery/publish", { method: "POST" }))).toMatchObject({ status: "listed" });
    expect((await json(await node.request("/discover?q=alice"))).results).toHaveLength(1);
  });

  test("rejections: no token 401, invalid body 400, no agent 404", async () => {
    node = bootTestApp();
    for (const path of ["/api/svc/discovery", "/api/svc/discovery/publish", "/api/svc/discovery/unpublish", "/api/svc/discovery/listings"]) {
      const res = await node.request(path, { method: path.endsWith("publish") ? "POST" : "GET" });
      expect({ path, status: res.status }).toEqual({ path, status: 401 });
    }
    const bad: Array<[unknown, string]> = [
      [{ tags: Array.from({ length: 33 }, (_, i) => `t${i}`) }, "tags: at most 32"],
      [{ tags: ["x".repeat(65)] }, "tags: each at most 64"],
      [{ tags: [" "] }, "tags: empty value"],
      [{ location: "x".repeat(201) }, "location: at most 200"],
      [{ roles: Array.from({ length: 17 }, (_, i) => `r${i}`) }, "roles: at most 16"],
      [{ tags: "rust" }, "tags"],
      [{ bogus: 1 }, 'unknown member "bogus"; allowed: tags, location, roles'],
      [[], "a JSON object {tags?, location?, roles?}"],
    ];
    for (const [body, message] of bad) {
      const res = await asOwner(node, "/api/svc/discovery/publish", { body });
      expect(res.status).toBe(400);
      expect((await json(res)).message).toContain(message);
    }
    node.close();
    node = bootTestApp({ agent: false });
    expect((await asOwner(node, "/api/svc/discovery/publish", { method: "POST" })).status).toBe(404);
    expect((await asOwner(node, "/api/svc/discovery")).status).toBe(404);
  });

  test("the owner sees the directory's listings, own and remote, with their status", async () => {
    node = bootTestApp();
    await asOwner(node, "/api/svc/discovery/publish", { method: "POST" });
    const page = await json(await asOwner(node, "/api/svc/discovery/listings"));
    expect(page.items).toHaveLength(1);
    expect(page.items[0]).toMatchObject({ handle: "alice", source: "self", status: "listed", failures: 0, lastError: null });
    await asOwner(node, "/api/svc/discovery/unpublish", { method: "POST" });
    expect((await json(await asOwner(node, "/api/svc/discovery/listings?status=listed"))).items).toEqual([]);
    expect((await json(await asOwner(node, "/api/svc/discovery/listings?status=delisted&source=self"))).items).toHaveLength(1);
    expect((await asOwner(node, "/api/svc/discovery/listings?status=gone")).status).toBe(400);
  });
});
