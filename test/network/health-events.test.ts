import { afterEach, describe, expect, test } from "bun:test";
import { eq } from "drizzle-orm";
import { connections, events } from "../../src/db/schema/index.ts";
import { recomputeAllRelationships } from "../../src/domain/relationships/recompute-all-relationships.ts";
import { bootTestApp, type TestNode } from "../helpers/boot.ts";

let node: TestNode;
afterEach(() => node?.close());

describe("relationship.health_changed", () => {
  test("a band that moves is an event with the bands and the layer (never content); a first band or a recompute that moves nothing is none", () => {
    node = bootTestApp();
    const at = node.clock.now();
    node.db.insert(connections).values({ id: "c-1", principal: "did:web:one.example", agentId: "did:web:one.example", status: "connected", initiatedBy: "us", createdAt: at, updatedAt: at, connectedAt: at, lastMessageAt: at }).run();
    recomputeAllRelationships(node.ctx());
    const first = node.db.select().from(connections).where(eq(connections.id, "c-1")).get()!;
    node.clock.advance(3 * 365 * 86_400_000);
    recomputeAllRelationships(node.ctx());
    recomputeAllRelationships(node.ctx());
    const rows = node.db.select().from(events).where(eq(events.type, "relationship.health_changed")).all();
    expect(rows.map((r) => [r.subjectId, r.peerPrincipal, JSON.parse(r.dataJson!)])).toEqual([
      ["c-1", null, { from: first.health, to: "dormant" }],
    ]);
  });
});
