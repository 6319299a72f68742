import { afterEach, describe, expect, test } from "bun:test";
import { sql } from "drizzle-orm";
import { connections, events, jobCursors } from "../../src/db/schema/index.ts";
import { pruneEvents } from "../../src/domain/extensions/prune-events.ts";
import { decodeEd25519PublicKey } from "../../src/ink/index.ts";
import { verifyAuditEventChain, verifyAuditEventSignature } from "../../src/ink/profiles.ts";
import { bootTestApp, type TestNode } from "../helpers/boot.ts";
import { acmeManifest, extRequest, installAcme } from "../helpers/extensions.ts";
import { asOwner } from "../helpers/owner.ts";

let node: TestNode;
afterEach(() => node?.close());

function addContact(n: TestNode, id: string, layer: string) {
  const now = n.clock.now();
  n.db.insert(connections).values({ id, principal: `key:${id}`, agentId: `svc:${id}`, handle: id, displayName: id, status: "connected", initiatedBy: "us", layer: layer as "inner", createdAt: now, updatedAt: now }).run();
}

type Page = { streamId: string; events: Array<{ seq: number; kind: string; subject: { id: string; layer?: string }; data: Record<string, unknown> }>; nextSince: number; hasMore: boolean; latest: number; gap?: unknown };

async function feed(n: TestNode, token: string, query = ""): Promise<Page> {
  const res = await extRequest(n, token, "GET", `/ext/v1/events${query}`);
  if (res.status !== 200) throw new Error(`${res.status} ${await res.text()}`);
  return (await res.json()) as Page;
}

describe("GET /ext/v1/events", () => {
  test("since omitted starts from now; changes arrive with their kinds; the cursor moves past what is hidden", async () => {
    node = bootTestApp();
    addContact(node, "con_a", "active");
    addContact(node, "con_s", "sympathy");
    const { token } = await installAcme(node);
    const start = await feed(node, token);
    expect([start.events, start.nextSince, start.hasMore]).toEqual([[], start.latest, false]);

    await asOwner(node, "/api/svc/connections/con_s", { method: "PATCH", body: { layer: "recognition" } }); // hidden: both layers outside the grant
    await asOwner(node, "/api/svc/connections/con_a", { method: "PATCH", body: { layer: "inner" } }); // inside → inside
    await asOwner(node, "/api/svc/connections/con_s", { method: "PATCH", body: { layer: "inner" } }); // enters the grant
    await asOwner(node, "/api/svc/profile/public", { method: "PUT", body: { headline: "New", skills: [], interests: [], openTo: [] } });
    await asOwner(node, "/api/svc/profile/work", { method: "PUT", body: { headline: "Hidden", skills: [], interests: [], openTo: [] } }); // not the public scope

    const page = await feed(node, token, `?since=${start.nextSince}`);
    expect(page.events.map((e) => [e.kind, e.subject.id])).toEqual([
      ["connection.layer_changed", "con_a"],
      ["connection.entered_scope", "con_s"],
      ["profile.updated", "public"],
    ]);
    expect(page.events[0]!.data).toEqual({ from: "active", to: "inner" });
    expect(page.nextSince).toBe(page.latest);
    expect(page.streamId).toMatch(/^st_/);

    const limited = await feed(node, token, `?since=${start.nextSince}&limit=1`);
    expect([limited.events.length, limited.hasMore, limited.nextSince]).toEqual([1, true, limited.events[0]!.seq]);
    const kinds = await feed(node, token, `?since=${start.nextSince}&kinds=profile.*`);
    expect(kinds.events.map((e) => e.kind)).toEqual(["profile.updated"]);
  });

  test("since in the future is 400 since_in_future with latest and streamId; bad queries are 400; no permission is 403", async () => {
    node = bootTestApp();
    const { token } = await installAcme(node);
    const now = await feed(node, token);
    const res = await extRequest(node, token, "GET", `/ext/v1/events?since=${now.latest + 1}`);
    expect([res.status, await res.json()]).toEqual([400, { error: "since_in_future", message: expect.any(String), latest: now.latest, streamId: now.streamId }]);
    for (const q of ["since=-1", "since=x", "limit=0", "limit=501", "kinds=DROP%20TABLE"]) expect((await extRequest(node, token, "GET", `/ext/v1/events?${q}`)).status).toBe(400);
    const other = await installAcme(node, { manifest: acmeManifest({ id: "com.acme.other" }), grant: { permissions: ["connections:list"], layers: ["inner"] } });
    expect((await extRequest(node, other.token, "GET", "/ext/v1/events")).status).toBe(403);
  });

  test("an installation sees its own installation.updated, not another's; the manifest's events[] bound the kinds", async () => {
    node = bootTestApp();
    const a = await installAcme(node, { manifest: acmeManifest({ events: ["installation.*"] }) });
    const b = await installAcme(node, { manifest: acmeManifest({ id: "com.acme.other" }) });
    const since = (await feed(node, a.token)).latest;
    const put = await asOwner(node, `/api/svc/extensions/${b.installationId}/permissions`, { method: "PUT", body: { permissions: ["connections:list", "events:subscribe"], layers: ["inner"] } });
    const bToken = ((await put.json()) as { delegationToken: string }).delegationToken;
    await asOwner(node, "/api/svc/profile/public", { method: "PUT", body: { headline: "New", skills: [], interests: [], openTo: [] } });
    expect((await feed(node, a.token, `?since=${since}`)).events).toEqual([]);
    const seen = await feed(node, bToken, `?since=${since}`);
    expect(seen.events.map((e) => e.kind)).toEqual(["installation.updated"]); // profile:read was narrowed away
    expect(seen.events[0]!.data).toEqual({ permissions: ["connections:list", "events:subscribe"], layers: ["inner"], maxAutonomyTier: "social" });
  });
});

describe("GET /ext/v1/audit", () => {
  test("the installation's own chain, in INK's record form: sequence +1, linked hashes, signed by the agent's key", async () => {
    node = bootTestApp();
    const { token, installationId } = await installAcme(node);
    await installAcme(node, { manifest: acmeManifest({ id: "com.acme.other" }) });
    for (let i = 0; i < 3; i++) await extRequest(node, token, "GET", "/ext/v1/identity");
    const res = await extRequest(node, token, "GET", "/ext/v1/audit");
    const page = (await res.json()) as { events: Array<Record<string, any>>; total: number };
    expect(page.events.map((e) => e.eventType)).toEqual(["delegation.granted", "delegation.used", "delegation.used", "delegation.used", "delegation.used"]);
    expect(page.total).toBe(5);
    expect(page.events[1]!.data).toEqual({ transport: "extension_api", method: "GET", path: "/ext/v1/identity" });
    expect(page.events[4]!.data.path).toBe("/ext/v1/audit");
    expect(verifyAuditEventChain(page.events)).toMatchObject({ ok: true });
    const identity = (await (await extRequest(node, token, "GET", "/ext/v1/identity")).json()) as { publicKeyMultibase: string; agentId: string };
    const keys = { kind: "bootstrap" as const, publicKey: decodeEd25519PublicKey(identity.publicKeyMultibase)! };
    for (const e of page.events) {
      expect(e.agentId).toBe(identity.agentId);
      expect(verifyAuditEventSignature(e, keys as never).ok).toBe(true);
    }
    const tampered = page.events.map((e, i) => (i === 2 ? { ...e, data: { ...e.data, path: "/elsewhere" } } : e));
    expect(verifyAuditEventChain(tampered)).toMatchObject({ ok: false, reason: "previous_hash_mismatch" });
    expect(installationId).toBeString();
  });

  test("limit and offset page the chain; out-of-range values are 400", async () => {
    node = bootTestApp();
    const { token } = await installAcme(node);
    for (let i = 0; i < 4; i++) await extRequest(node, token, "GET", "/ext/v1/identity");
    const page = (await (await extRequest(node, token, "GET", "/ext/v1/audit?limit=2&offset=1")).json()) as { events: Array<{ sequence: number }>; limit: number; offset: number };
    expect([page.events.map((e) => e.sequence), page.limit, page.offset]).toEqual([[2, 3], 2, 1]);
    for (const q of ["limit=201", "limit=0", "offset=-2", "offset=x"]) expect((await extRequest(node, token, "GET", `/ext/v1/audit?${q}`)).status).toBe(400);
  });
});

describe("retention", () => {
  test("the oldest events (past 30 days, beyond the newest 10,000, read by every job) are pruned; a cursor older than what is kept gets a gap", async () => {
    node = bootTestApp();
    const old = node.clock.now() - 31 * 24 * 3600_000;
    const rows = Array.from({ length: 10_050 }, (_, i) => ({ type: "rule.updated", subjectId: `r${i}`, createdAt: i < 60 ? old : node.clock.now() }));
    node.db.transaction((tx) => {
      for (let i = 0; i < rows.length; i += 500) tx.insert(events).values(rows.slice(i, i + 500)).run();
    });
    const { token } = await installAcme(node);
    // a job that has not read past seq 10 holds everything after it
    node.db.insert(jobCursors).values({ name: "slow-job", seq: 10, updatedAt: 0 }).run();
    expect(pruneEvents(node.ctx())).toBe(10);
    node.db.update(jobCursors).set({ seq: 1_000_000 }).run();
    // then up to the newest 10,000 (the old ones past that floor stay)
    const newest = node.db.select({ seq: sql<number>`max(seq)` }).from(events).get()!.seq;
    expect(pruneEvents(node.ctx())).toBe(newest - 10_000 - 10);
    expect(node.db.select({ n: sql<number>`count(*)` }).from(events).get()!.n).toBe(10_000);
    const page = await feed(node, token, "?since=0&limit=1");
    expect(page.gap).toEqual({ reason: "since_before_retention", from: 1, to: newest - 10_000 });
    expect((await feed(node, token, `?since=${newest - 10_000}&limit=1`)).gap).toBeUndefined();
  });
});
