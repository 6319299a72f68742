import { afterEach, describe, expect, test } from "bun:test";
import { sql } from "drizzle-orm";
import { bootTestApp, type TestNode } from "../helpers/boot.ts";
import { extRequest, installAcme } from "../helpers/extensions.ts";
import { asOwner } from "../helpers/owner.ts";

let node: TestNode;
afterEach(() => node?.close());

interface Trail {
  events: Array<{ sequence: number; eventType: string; version: string; agentSignature: string; data?: Record<string, unknown> }>;
  total: number;
  limit: number;
  offset: number;
  chain: { verified: boolean; reason?: string; index?: number };
}

const trail = async (id: string, query = "") => {
  const res = await asOwner(node, `/api/svc/extensions/${id}/audit${query}`);
  return { status: res.status, body: (await res.json()) as Trail & { error?: string; message?: string } };
};

describe("GET /api/svc/extensions/{id}/audit", () => {
  test("the installation's chain, newest first, in INK's record form, verified; an extension call appears", async () => {
    node = bootTestApp();
    const { installationId, token } = await installAcme(node);
    expect((await extRequest(node, token, "GET", "/ext/v1/identity")).status).toBe(200);
    const { status, body } = await trail(installationId);
    expect(status).toBe(200);
    expect(body.events.map((e) => [e.sequence, e.eventType])).toEqual([
      [2, "delegation.used"],
      [1, "delegation.granted"],
    ]);
    expect(body.events[0]!.data).toMatchObject({ method: "GET", path: "/ext/v1/identity" });
    expect(body.events.every((e) => e.version === "ink-audit/1" && e.agentSignature.length > 0)).toBe(true);
    expect([body.total, body.limit, body.offset, body.chain]).toEqual([2, 50, 0, { verified: true }]);
    // the same records the extension itself reads, in the other order
    const own = (await (await extRequest(node, token, "GET", "/ext/v1/audit")).json()) as { events: unknown[] };
    expect(own.events.slice(0, 2)).toEqual([...body.events].reverse());
  });

  test("pages with limit and offset; total is the chain's length", async () => {
    node = bootTestApp();
    const { installationId, token } = await installAcme(node);
    for (let i = 0; i < 4; i++) expect((await extRequest(node, token, "GET", "/ext/v1/identity")).status).toBe(200);
    const first = await trail(installationId, "?limit=2");
    const second = await trail(installationId, "?limit=2&offset=2");
    const last = await trail(installationId, "?limit=2&offset=4");
    expect(first.body.events.map((e) => e.sequence)).toEqual([5, 4]);
    expect(second.body.events.map((e) => e.sequence)).toEqual([3, 2]);
    expect(last.body.events.map((e) => e.sequence)).toEqual([1]);
    expect([first.body.total, last.body.total, last.body.chain.verified]).toEqual([5, 5, true]);
  });

  test("chain.verified is false when a stored event was changed, or the chain's start removed", async () => {
    node = bootTestApp();
    const { installationId, token } = await installAcme(node);
    for (let i = 0; i < 2; i++) expect((await extRequest(node, token, "GET", "/ext/v1/identity")).status).toBe(200);
    node.db.run(sql`UPDATE audit_events SET event_json = json_set(event_json, '$.data.path', '/ext/v1/forged') WHERE chain_id = ${installationId} AND sequence = 2`);
    expect((await trail(installationId)).body.chain).toEqual({ verified: false, reason: "previous_hash_mismatch", index: 2 });
    node.db.run(sql`DELETE FROM audit_events WHERE chain_id = ${installationId} AND sequence IN (1, 2)`);
    expect((await trail(installationId)).body.chain).toEqual({ verified: false, reason: "sequence_gap", index: 0 });
  });

  test("the trail is kept after an uninstall", async () => {
    node = bootTestApp();
    const { installationId } = await installAcme(node);
    expect((await asOwner(node, `/api/svc/extensions/${installationId}`, { method: "DELETE" })).status).toBe(200);
    const { body } = await trail(installationId);
    expect(body.events.map((e) => e.eventType)).toEqual(["delegation.revoked", "delegation.granted"]);
  });

  test("401 without an owner token, 404 for an unknown installation, 400 for bad query values", async () => {
    node = bootTestApp();
    const { installationId } = await installAcme(node);
    const anonymous = await node.request(`/api/svc/extensions/${installationId}/audit`);
    expect(anonymous.status).toBe(401);
    const unknown = await trail("00000000-0000-4000-8000-000000000000");
    expect([unknown.status, unknown.body.error]).toEqual([404, "not_found"]);
    expect((await trail("x".repeat(65))).status).toBe(400);
    for (const query of ["?limit=0", "?limit=201", "?limit=abc", "?limit=-1", "?offset=-1", "?offset=1.5", "?limit=99999999999", "?limit=1&limit=2"]) {
      const res = await trail(installationId, query);
      expect({ query, status: res.status, error: res.body.error }).toEqual({ query, status: 400, error: "invalid_input" });
    }
  });
});
