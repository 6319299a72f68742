import { afterEach, describe, expect, test } from "bun:test";
import { eq } from "drizzle-orm";
import { directoryListings } from "../../src/db/schema/index.ts";
import { MAX_NETWORK_FAILURES, revalidateListings } from "../../src/domain/discovery/revalidate-listings.ts";
import { refreshOwnListing } from "../../src/domain/discovery/refresh-own-listing.ts";
import { agents } from "../../src/db/schema/index.ts";
import { startDirectoryRevalidator } from "../../src/jobs/directory-revalidator.ts";
import { bootNetworkNode, bootTestApp, type TestNode } from "../helpers/boot.ts";
import { testClock } from "../helpers/clock.ts";
import { fakeAgent, LISTINGS_PATH, listingRequest } from "../helpers/discovery.ts";
import { asOwner } from "../helpers/owner.ts";
import { json } from "../helpers/process.ts";

type Net = TestNode & { url: string; stop(): Promise<void> };
let dir: Net;
let fakes: Array<{ stop(): unknown }> = [];
afterEach(async () => {
  await dir?.stop();
  for (const f of fakes) f.stop();
  fakes = [];
});

const HOUR = 60 * 60 * 1000;

/** A directory (6 h re-validation) with the fake agent `eve` listed in it. */
async function listed() {
  dir = await bootNetworkNode({ name: "dir", persona: "carol", clock: testClock(), discovery: { revalidateMs: 6 * HOUR } });
  const eve = fakeAgent("eve", "bob");
  fakes.push(eve);
  const res = await dir.request(LISTINGS_PATH, listingRequest(dir, { from: eve.agentId, cardUrl: eve.cardUrl, signer: "bob" }));
  expect(res.status).toBe(200);
  return eve;
}
const row = () => dir.db.select().from(directoryListings).get()!;
const found = async (q: string) => (await json(await dir.request(`/discover?q=${q}`))).results.length;
const revalidate = () => revalidateListings(dir.ctx());

describe("re-validation of remote listings", () => {
  test("nothing is fetched before a listing is due; a valid card is re-indexed (new handle, tags) and scheduled again", async () => {
    const eve = await listed();
    const hitsAfterListing = eve.state.hits;
    expect(await revalidate()).toEqual({ checked: 0, kept: 0, dropped: 0, failing: 0 });
    expect(eve.state.hits).toBe(hitsAfterListing);
    eve.state.handle = "evelyn";
    eve.state.tags = ["zig"];
    dir.clock.advance(6 * HOUR);
    expect(await revalidate()).toEqual({ checked: 1, kept: 1, dropped: 0, failing: 0 });
    expect(row()).toMatchObject({ status: "listed", handle: "evelyn", tags: '["zig"]', lastValidatedAt: dir.clock.now(), nextValidationAt: dir.clock.now() + 6 * HOUR, failures: 0 });
    expect(await found("evelyn&skills=zig")).toBe(1);
    expect(await json(await dir.request("/evelyn"))).toMatchObject({ found: true, agentId: eve.agentId });
  });

  for (const [mode, reason] of [
    ["404", "status (HTTP 404)"],
    ["invalid", "invalid_card"],
    ["text", "content_type"],
    ["other-agent", "agent_id_mismatch"],
    ["opted-out", "discovery_not_enabled"],
    ["unbound", "card_identity_mismatch"],
  ] as const) {
    test(`a card that answers "${mode}" is dropped at once (${reason}) and leaves search`, async () => {
      const eve = await listed();
      eve.state.mode = mode;
      dir.clock.advance(6 * HOUR);
      expect(await revalidate()).toMatchObject({ checked: 1, dropped: 1 });
      expect(row()).toMatchObject({ status: "dropped", nextValidationAt: null });
      expect(row().lastError).toContain(reason);
      expect(await found("eve")).toBe(0);
      expect(await json(await dir.request("/eve"))).toMatchObject({ found: false });
      // the owner of the directory sees why
      const [item] = (await json(await asOwner(dir, "/api/svc/discovery/listings?status=dropped"))).items;
      expect(item.lastError).toContain(reason);
      // dropped is not searched again later
      dir.clock.advance(6 * HOUR);
      expect((await revalidate()).checked).toBe(0);
    });
  }

  test(`an unreachable card is retried sooner and dropped after ${MAX_NETWORK_FAILURES} failures in a row; a success in between resets the count`, async () => {
    const eve = await listed();
    eve.state.mode = "503";
    dir.clock.advance(6 * HOUR);
    expect(await revalidate()).toMatchObject({ failing: 1 });
    expect(row()).toMatchObject({ status: "listed", failures: 1, nextValidationAt: dir.clock.now() + 5 * 60_000 });
    expect(await found("eve")).toBe(1); // still searchable while failing
    eve.state.mode = "ok";
    dir.clock.advance(5 * 60_000);
    expect(await revalidate()).toMatchObject({ kept: 1 });
    expect(row()).toMatchObject({ failures: 0, lastError: null });

    eve.stop(); // the host goes away: connection refused
    for (let i = 1; i < MAX_NETWORK_FAILURES; i++) {
      dir.clock.advance(6 * HOUR);
      expect(await revalidate()).toMatchObject({ failing: 1 });
      expect(row()).toMatchObject({ status: "listed", failures: i });
    }
    expect(row().nextValidationAt).toBe(dir.clock.now() + 10 * 60_000); // 5 min, then 10 min
    dir.clock.advance(10 * 60_000);
    expect(await revalidate()).toMatchObject({ dropped: 1 });
    expect(row()).toMatchObject({ status: "dropped", failures: MAX_NETWORK_FAILURES });
    expect(row().lastError).toContain(`unreachable ${MAX_NETWORK_FAILURES} times in a row`);
  });

  test("the job: runOnce re-validates what is due", async () => {
    const eve = await listed();
    const job = startDirectoryRevalidator({ ctx: () => dir.ctx(), log: dir.ctx().log, everyMs: 60 * HOUR });
    eve.state.mode = "404";
    dir.clock.advance(6 * HOUR);
    await job.runOnce();
    await job.stop();
    expect(row().status).toBe("dropped");
  });
});

describe("the own listing follows the agent", () => {
  test("a changed display name is re-indexed and pushed again; nothing happens while unpublished or unchanged", async () => {
    const node = bootTestApp({ discovery: { directories: ["https://dir.example"] } });
    try {
      expect(refreshOwnListing(node.ctx())).toBe(false);
      await asOwner(node, "/api/svc/discovery/publish", { method: "POST" });
      expect(refreshOwnListing(node.ctx())).toBe(false);
      node.db.update(agents).set({ displayName: "Alice Renamed" }).where(eq(agents.id, 1)).run();
      node.clock.advance(1000);
      expect(refreshOwnListing(node.ctx())).toBe(true);
      expect((await json(await node.request("/discover?q=renamed"))).results).toHaveLength(1);
      const state = await json(await asOwner(node, "/api/svc/discovery"));
      expect(state.directories[0]).toMatchObject({ action: "publish", state: "queued", nextAttemptAt: new Date(node.clock.now()).toISOString() });
      await asOwner(node, "/api/svc/discovery/unpublish", { method: "POST" });
      node.db.update(agents).set({ displayName: "Alice Again" }).where(eq(agents.id, 1)).run();
      expect(refreshOwnListing(node.ctx())).toBe(false);
    } finally {
      node.close();
    }
  });
});
