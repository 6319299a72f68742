import { afterEach, describe, expect, test } from "bun:test";
import { conversations, connections, contactRelations, messages } from "../../src/db/schema/index.ts";
import { loadContactGraph } from "../../src/domain/network/load-contact-graph.ts";
import { createNetworkRunner } from "../../src/node/network-runner.ts";
import { bootTestApp, type TestNode } from "../helpers/boot.ts";
import { plantedNetwork, writeNetwork } from "../helpers/network-fixture.ts";

const DAY = 86_400_000;
let node: TestNode;
afterEach(() => node?.close());

function contact(node: TestNode, id: string, principal: string | null, status: "connected" | "contact" | "blocked" = "connected") {
  const at = node.clock.now();
  node.db.insert(connections).values({ id, principal, agentId: principal, status, initiatedBy: "us", createdAt: at, updatedAt: at }).run();
}

let seq = 0;
function message(node: TestNode, peer: string, intent: string, payload: unknown, ageDays: number, direction: "in" | "out" = "in") {
  const at = node.clock.now() - ageDays * DAY;
  const conv = `conv-${++seq}`;
  node.db.insert(conversations).values({ id: conv, peerPrincipal: peer, correlationId: conv, lastMessageAt: at, createdAt: at }).run();
  node.db
    .insert(messages)
    .values({ id: `m-${seq}`, envelopeId: `e-${seq}`, direction, peerPrincipal: peer, peerAgentId: peer, conversationId: conv, correlationId: conv, intent, protocol: "ink/0.1", payloadJson: JSON.stringify(payload), status: "read", createdAt: at, receivedAt: at })
    .run();
}

describe("the contact graph (docs/decisions/contact-graph.md)", () => {
  test("introductions, introducers and multi-party syncs are ties that fade with age; relations do not; non-contacts add nothing", () => {
    node = bootTestApp();
    for (const x of ["a", "b", "c", "d", "e"]) contact(node, `c-${x}`, `did:web:${x}.example`);
    contact(node, "c-f", null, "contact");
    contact(node, "c-blocked", "did:web:blocked.example", "blocked");
    message(node, "did:web:a.example", "intro_request", { target: "did:web:b.example", reason: "r", urgency: "low" }, 0);
    message(node, "did:web:c.example", "connection_request", { method: "intro", introducedBy: "did:web:a.example", context: "x", profileSnapshot: {} }, 180);
    message(node, "did:web:d.example", "multi_party_sync", { enclaveType: "meeting_sync", purpose: "p", participants: ["did:web:e.example", "did:web:b.example", "did:web:stranger.example", "did:web:blocked.example"], expiresAt: "2030-01-01T00:00:00Z" }, 0, "out");
    message(node, "did:web:e.example", "intro_request", { target: "did:web:c.example", reason: "old", urgency: "low" }, 600); // below 0.05: gone
    message(node, "did:web:e.example", "intro_request", { target: "not a principal at all \u0000", reason: "r", urgency: "low" }, 0);
    message(node, "did:web:e.example", "ping", { note: "no evidence" }, 0);
    message(node, "did:web:e.example", "intro_request", "{not json", 0);
    node.db.insert(contactRelations).values({ id: "r1", aId: "c-a", bId: "c-f", source: "import", weight: 0.5, createdAt: node.clock.now() - 900 * DAY }).run();

    const g = loadContactGraph(node.db, node.clock.now());
    expect(g.ids).toEqual(["c-a", "c-b", "c-c", "c-d", "c-e", "c-f"]);
    const ties = Array.from(g.edges.a, (a, i) => [g.ids[a], g.ids[g.edges.b[i]!], Math.round(g.edges.w[i]! * 1000) / 1000]);
    expect(ties).toEqual([
      ["c-a", "c-b", 1],
      ["c-a", "c-c", Math.round(Math.exp(-1) * 1000) / 1000],
      ["c-a", "c-f", 0.5],
      ["c-b", "c-d", 1],
      ["c-b", "c-e", 1],
      ["c-d", "c-e", 1],
    ]);
  });

  test("the Worker and the in-process runner give the same analysis", async () => {
    node = bootTestApp();
    writeNetwork(node.db, plantedNetwork().net, node.clock.now());
    const worker = createNetworkRunner(node.db, node.ctx().log);
    const inline = createNetworkRunner(node.db, node.ctx().log, { inline: true });
    expect(worker.mode).toBe("worker");
    const request = { now: node.clock.now(), changeKey: "k", previous: null, audiences: ["active,known"] };
    const w = await worker.compute(request);
    const i = await inline.compute(request);
    expect(worker.lastTimings!.computeMs).toBeGreaterThan(0);
    if (w.outcome !== "recomputed" || i.outcome !== "recomputed") throw new Error("both must store a snapshot");
    expect(w.structure.graphVersion).toBe(i.structure.graphVersion);
    expect(Array.from(w.structure.cluster)).toEqual(Array.from(i.structure.cluster));
    expect(w.structure.clusterIds).toEqual(i.structure.clusterIds);
    expect(w.structure.sole).toEqual(i.structure.sole);
    // the Worker stored what it computed: the same graph again is only noted
    const again = await worker.compute({ ...request, changeKey: "k2", previous: { id: i.meta.id, graphVersion: i.meta.graphVersion } });
    expect(again.outcome).toBe("unchanged");
    expect(again.meta).toMatchObject({ id: i.meta.id, changeKey: "k2" });
    worker.close();
  });
});
