// Issue 21: state that strangers create expires — peer cards learned about agents the node has
// nothing to do with, durable rate-limit rows for addresses anyone can type, the relationship
// scorer's in-memory throttle. Created through the real HTTP surface, pruned by the maintenance
// job's functions (what its timer runs).
import { afterEach, describe, expect, test } from "bun:test";
import { eq } from "drizzle-orm";
import { connections, peerCards, rateLimits } from "../../src/db/schema/index.ts";
import { pruneRateLimits, pruneStrangerPeerCards } from "../../src/domain/federation/prune.ts";
import { MIN_RESCORE_MS, refreshRelationships, trafficStateSize } from "../../src/domain/relationships/recompute.ts";
import { bootTestApp, type TestNode } from "../helpers/boot.ts";
import { postIntent, signedIntent } from "../helpers/ink.ts";
import { postJson } from "../helpers/owner.ts";

let node: TestNode;
afterEach(() => node?.close());
const DAY = 24 * 60 * 60 * 1000;

describe("state strangers create expires", () => {
  test("peer cards of agents with no connection, message or listing go after a day; others stay", async () => {
    node = bootTestApp({ name: "bob", persona: "bob" });
    const now = node.clock.now();
    const row = (principal: string) => ({ principal, agentId: principal.replace("key:", "svc:"), cardUrl: null, cardJson: null, fetchedAt: null, expiresAt: null, signingSetObserved: true, lastRefreshAt: now, createdAt: now, updatedAt: now });
    node.db.insert(peerCards).values([row("key:z6MkStranger"), row("key:z6MkFriend"), row("key:z6MkRecent")]).run();
    node.db.insert(connections).values({ id: "con_1", principal: "key:z6MkFriend", agentId: "svc:z6MkFriend", status: "connected", initiatedBy: "us", createdAt: now, updatedAt: now }).run();
    node.clock.advance(DAY + 1);
    node.db.update(peerCards).set({ updatedAt: node.clock.now() }).where(eqPrincipal("key:z6MkRecent")).run();
    expect(pruneStrangerPeerCards(node.ctx())).toBe(1);
    expect(node.db.select({ p: peerCards.principal }).from(peerCards).all().map((r) => r.p).sort()).toEqual(["key:z6MkFriend", "key:z6MkRecent"]);
  });

  test("rate-limit rows for addresses strangers typed go once their window is long over", async () => {
    node = bootTestApp();
    for (let i = 0; i < 5; i++) expect((await postJson(node, "/auth/email/send", { email: `nobody${i}@example.net` }, { ip: `198.51.100.${i}` })).status).toBe(200);
    expect(node.db.select().from(rateLimits).all()).toHaveLength(5);
    node.clock.advance(DAY);
    expect(pruneRateLimits(node.ctx())).toBe(0); // a day-old window could still matter to a longer rule
    node.clock.advance(DAY + 1);
    expect(pruneRateLimits(node.ctx())).toBe(5);
  });

  test("the relationship scorer forgets the principals it throttled once the throttle has passed", async () => {
    node = bootTestApp({ name: "bob", persona: "bob" });
    const request = { intent: "connection_request", payload: { method: "discovery", context: "hi", profileSnapshot: { headline: "", skills: [], interests: [], openTo: [] } } };
    for (const persona of ["alice", "carol", "acme"] as const) expect((await postIntent(node, signedIntent(persona, node, request))).status).toBe(202);
    refreshRelationships(node.ctx());
    expect(trafficStateSize(node.db)).toBe(3);
    node.clock.advance(MIN_RESCORE_MS);
    refreshRelationships(node.ctx());
    expect(trafficStateSize(node.db)).toBe(0);
  });
});

function eqPrincipal(p: string) {
  return eq(peerCards.principal, p);
}
