import { afterEach, expect, test } from "bun:test";
import { join } from "node:path";
import { closeDatabase, openDatabase } from "../../src/db/client.ts";
import { verifyAuditEventChain, type AuditEvent } from "../../src/ink/audit.ts";
import { bootTestApp, type TestNode } from "../helpers/boot.ts";
import { extRequest, installAcme } from "../helpers/extensions.ts";

let node: TestNode;
afterEach(() => node?.close());

/**
 * Many extension requests in one turn of the event loop share one group commit (the write
 * queue): each still records its own nonce before it is answered, a nonce sent twice in the same
 * batch passes checks 1–7 twice but is recorded once (the second is check 6's 401), and the
 * installation's audit chain stays strictly sequential: one `delegation.used` per 200, no gap,
 * no fork, every link verifiable.
 */
test("concurrent requests: distinct persisted nonces, one refused duplicate, a contiguous verifiable audit chain", async () => {
  node = bootTestApp();
  const { token, installationId } = await installAcme(node);
  const nonces = Array.from({ length: 48 }, (_, i) => `concurrent-${i.toString().padStart(6, "0")}`);
  const sent = [...nonces, nonces[7]!]; // the same nonce twice, in flight together
  const answers = await Promise.all(sent.map((nonce) => extRequest(node, token, "GET", "/ext/v1/identity", { nonce })));
  const statuses = answers.map((a) => a.status);
  expect(statuses.filter((s) => s === 200)).toHaveLength(nonces.length);
  expect(statuses.filter((s) => s === 401)).toHaveLength(1);
  const refused = answers.find((a) => a.status === 401)!;
  expect(((await refused.json()) as { error: string }).error).toBe("nonce_replayed");

  // Persisted: read back through a second connection to the database file, not the node's own.
  const other = openDatabase(join(node.dir, "kith.db"));
  try {
    const stored = other.$client.query<{ nonce: string }, [string]>("SELECT nonce FROM inbound_nonces WHERE scope = ? ORDER BY nonce").all(`ext:${installationId}`);
    expect(stored.map((r) => r.nonce)).toEqual([...nonces].sort());
    const events = other.$client
      .query<{ eventJson: string }, [string]>("SELECT event_json AS eventJson FROM audit_events WHERE chain_id = ? ORDER BY sequence")
      .all(installationId)
      .map((r) => JSON.parse(r.eventJson) as AuditEvent);
    expect(verifyAuditEventChain(events)).toMatchObject({ ok: true });
    expect(events.map((e) => e.sequence)).toEqual(events.map((_, i) => i + 1));
    expect(events[0]!.previousEventHash).toBeNull();
    const used = events.filter((e) => e.eventType === "delegation.used");
    expect(used).toHaveLength(nonces.length);
  } finally {
    closeDatabase(other);
  }

  // A replay of any of them is still refused.
  const replay = await extRequest(node, token, "GET", "/ext/v1/identity", { nonce: nonces[30]! });
  expect(replay.status).toBe(401);
  expect(((await replay.json()) as { error: string }).error).toBe("nonce_replayed");
});
