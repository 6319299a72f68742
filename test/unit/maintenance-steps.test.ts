import { afterEach, describe, expect, test } from "bun:test";
import { EVENT_FLOOR, EVENT_RETENTION_MS, pruneEvents } from "../../src/domain/extensions/prune-events.ts";
import { pruneIdempotencyKeys } from "../../src/domain/extensions/prune-idempotency-keys.ts";
import { IDEMPOTENCY_MS } from "../../src/domain/extensions/send-ext-intent.ts";
import { NONCE_RETENTION_MS, pruneNonces } from "../../src/domain/peers/prune-nonces.ts";
import { PRELOAD_STEP, startMaintenance } from "../../src/jobs/maintenance.ts";
import { nonceIndexSize } from "../../src/db/nonce-index.ts";
import { bootTestApp, type TestNode } from "../helpers/boot.ts";

// At a sustained 1,000 intents/s a minute of expired nonces (and, after 30 days, of events) is
// 60,000 rows: one DELETE of them held the event loop for ~1 s and fsynced on it (issue 18). The
// maintenance job now prunes them in steps with a turn of the event loop between, without an fsync.
let node: TestNode;
afterEach(() => node?.close());

const count = (table: string) => (node.db.$client.query(`SELECT count(*) AS n FROM ${table}`).get() as { n: number }).n;

function seedNonces(expired: number, fresh: number): void {
  const now = node.clock.now();
  const insert = node.db.$client.prepare("INSERT INTO inbound_nonces (scope, nonce, seen_at) VALUES (?, ?, ?)");
  node.db.$client.transaction(() => {
    for (let i = 0; i < expired; i++) insert.run(`key:z6Mk${i % 7}`, `old-${i}`, now - NONCE_RETENTION_MS - 1 - i);
    for (let i = 0; i < fresh; i++) insert.run(`key:z6Mk${i % 7}`, `new-${i}`, now - NONCE_RETENTION_MS + 1 + i);
  })();
}

/** Records the connection's `synchronous` at every delete from `table` (1 = NORMAL: no fsync in COMMIT). */
function recordSync(table: string): () => number[] {
  const sqlite = node.db.$client;
  sqlite.exec(`CREATE TEMP TABLE IF NOT EXISTS seen_sync (t TEXT, level INTEGER)`);
  sqlite.exec(`CREATE TEMP TRIGGER prune_sync_${table} AFTER DELETE ON ${table} BEGIN INSERT INTO seen_sync SELECT '${table}', synchronous FROM pragma_synchronous; END`);
  return () => (sqlite.query("SELECT level FROM seen_sync WHERE t = ?").all(table) as Array<{ level: number }>).map((r) => r.level);
}

describe("maintenance prunes what grows with traffic in steps", () => {
  test("expired nonces go in steps of pruneStep, the event loop turning between them, oldest first, never a fresh one, without an fsync", async () => {
    node = bootTestApp();
    seedNonces(1_000, 10);
    const levels = recordSync("inbound_nonces");
    const seen = new Set<number>();
    const job = startMaintenance({ ctx: () => node.ctx(), log: node.ctx().log, everyMs: 5, pruneStep: 100 });
    try {
      // One reading per turn of the event loop while the job runs.
      for (let i = 0; i < 5_000 && count("inbound_nonces") > 10; i++) {
        seen.add(count("inbound_nonces"));
        await new Promise((r) => setImmediate(r));
      }
    } finally {
      job.stop();
    }
    expect(count("inbound_nonces")).toBe(10);
    expect((node.db.$client.query("SELECT count(*) AS n FROM inbound_nonces WHERE nonce LIKE 'new-%'").get() as { n: number }).n).toBe(10);
    // Seen between two steps: the remaining count after some but not all of them.
    expect([...seen].filter((n) => n > 10 && n < 1_010).length).toBeGreaterThanOrEqual(3);
    expect(levels().length).toBe(1_000);
    expect(levels().every((l) => l === 1)).toBe(true);
    expect((node.db.$client.query("PRAGMA synchronous").get() as { synchronous: number }).synchronous).toBe(2);
  });

  test("after start the replay-nonce index is read in steps before any signed request, the event loop turning between them", async () => {
    node = bootTestApp();
    seedNonces(0, 2 * PRELOAD_STEP + 10);
    expect(nonceIndexSize(node.db)).toBe(0);
    const sizes = new Set<number>();
    const job = startMaintenance({ ctx: () => node.ctx(), log: node.ctx().log, preloadAfterMs: 0 });
    try {
      for (let i = 0; i < 5_000 && nonceIndexSize(node.db) < 2 * PRELOAD_STEP + 10; i++) {
        sizes.add(nonceIndexSize(node.db));
        await new Promise((r) => setImmediate(r));
      }
    } finally {
      job.stop();
    }
    expect(nonceIndexSize(node.db)).toBe(2 * PRELOAD_STEP + 10);
    // Seen between steps: one step read, not all of them.
    expect(sizes.has(PRELOAD_STEP)).toBe(true);
  });

  test("a limited prune removes the oldest expired nonces first and as many as asked", () => {
    node = bootTestApp();
    seedNonces(300, 5);
    expect(pruneNonces(node.ctx(), 120)).toBe(120);
    // What is left of the expired ones is the newer part.
    const oldestLeft = (node.db.$client.query("SELECT min(seen_at) AS s FROM inbound_nonces").get() as { s: number }).s;
    expect(oldestLeft).toBe(node.clock.now() - NONCE_RETENTION_MS - 1 - 179);
    expect(pruneNonces(node.ctx(), 1_000)).toBe(180);
    expect(pruneNonces(node.ctx(), 1_000)).toBe(0);
    expect(count("inbound_nonces")).toBe(5);
  });

  test("events past retention go as a prefix in steps, to the same end as one prune, the newest EVENT_FLOOR kept", () => {
    node = bootTestApp();
    const levels = recordSync("events");
    const now = node.clock.now();
    const insert = node.db.$client.prepare("INSERT INTO events (type, subject_id, peer_principal, data_json, created_at) VALUES ('message.received', ?, NULL, '{}', ?)");
    node.db.$client.transaction(() => {
      for (let i = 0; i < 600; i++) insert.run(`old-${i}`, now - EVENT_RETENTION_MS - 1_000 + i);
      for (let i = 0; i < EVENT_FLOOR; i++) insert.run(`new-${i}`, now - 1_000);
    })();
    const before = count("events");
    const steps: number[] = [];
    for (let n = pruneEvents(node.ctx(), 250); n > 0; n = pruneEvents(node.ctx(), 250)) steps.push(n);
    expect(steps.reduce((a, b) => a + b, 0)).toBe(600);
    expect(steps.every((n) => n <= 250)).toBe(true);
    expect(steps.length).toBeGreaterThanOrEqual(3);
    // Contiguous: the oldest kept follows the last deleted.
    expect((node.db.$client.query("SELECT count(*) AS n FROM events WHERE subject_id LIKE 'old-%'").get() as { n: number }).n).toBe(0);
    expect(count("events")).toBe(before - 600);
    expect(levels().every((l) => l === 1)).toBe(true);
  });

  test("Idempotency-Key answers past 24 h go oldest first, as many as asked, without an fsync; fresh ones stay", () => {
    node = bootTestApp();
    const levels = recordSync("extension_idempotency");
    const now = node.clock.now();
    const insert = node.db.$client.prepare("INSERT INTO extension_idempotency (installation_id, key, request_hash, status, response_json, created_at) VALUES ('ins_1', ?, 'h', 202, '{}', ?)");
    node.db.$client.transaction(() => {
      for (let i = 0; i < 250; i++) insert.run(`old-${i}`, now - IDEMPOTENCY_MS - 1 - i);
      for (let i = 0; i < 3; i++) insert.run(`new-${i}`, now - 1_000);
    })();
    expect(pruneIdempotencyKeys(node.ctx(), 100)).toBe(100);
    expect((node.db.$client.query("SELECT min(created_at) AS c FROM extension_idempotency").get() as { c: number }).c).toBe(now - IDEMPOTENCY_MS - 1 - 149);
    expect(pruneIdempotencyKeys(node.ctx(), 100)).toBe(100);
    expect(pruneIdempotencyKeys(node.ctx(), 100)).toBe(50);
    expect(pruneIdempotencyKeys(node.ctx())).toBe(0);
    expect(count("extension_idempotency")).toBe(3);
    expect(levels().length).toBe(250);
    expect(levels().every((l) => l === 1)).toBe(true);
  });
});
