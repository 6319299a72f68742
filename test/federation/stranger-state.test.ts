// Issue 21: state that strangers create expires — peer cards learned about agents the node has
// nothing to do with, the relationship scorer's in-memory throttle (sign-in state: auth-state-bounds
// tests). Pruned by the maintenance job's functions (what its timer runs).
import { afterEach, describe, expect, test } from "bun:test";
import { eq } from "drizzle-orm";
import { connections, peerCards } from "../../src/db/schema/index.ts";
import { pruneStrangerPeerCards } from "../../src/domain/peers/prune-stranger-peer-cards.ts";
import { MIN_RESCORE_MS, trafficStateSize } from "../../src/domain/relationships/internal/traffic-state.ts";
import { refreshRelationships } from "../../src/domain/relationships/refresh-relationships.ts";
import { bootTestApp, type TestNode } from "../helpers/boot.ts";
import { postIntent, signedIntent } from "../helpers/ink.ts";

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
