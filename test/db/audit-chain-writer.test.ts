import { afterEach, expect, test } from "bun:test";
import { closeDatabase, openDatabase, transaction, type Db } from "../../src/db/client.ts";
import { agentSigner } from "../../src/domain/extensions/internal/agent-signer.ts";
import { appendAuditEvent, appendPreparedAuditEvent, listAuditEvents, prepareAuditEvent, verifyAuditChain, type AuditSigner, type PreparedAuditEvent } from "../../src/domain/internal/audit-chain.ts";
import { nativeEd25519Sign } from "../../src/security/ed25519-native.ts";
import { concatBytes, utf8 } from "../../src/ink/bytes.ts";
import { ed25519Sign, encodeSignature, resolveSenderKeys } from "../../src/ink/index.ts";
import { auditEventCanonical, auditEventHash, verifyAuditEventChain, verifyAuditEventSignature, type AuditEvent } from "../../src/ink/profiles.ts";
import { bootTestApp, type TestNode } from "../helpers/boot.ts";
import { extRequest, installAcme } from "../helpers/extensions.ts";

// The audit chain writer (AUDIT §2-3) after its fast paths (a fixed-shape JCS writer, the chain
// head remembered between appends): what it stores is what the generic writer stored, byte for
// byte, and the head it remembers never hides a write by another connection or a rollback.
let node: TestNode;
let other: Db | null = null;
afterEach(() => {
  if (other) closeDatabase(other);
  other = null;
  node?.close();
});

interface Row {
  sequence: number;
  event_json: string;
  hash: string;
}
const rows = (db: Db, chain: string) => db.$client.query<Row, [string]>("SELECT sequence, event_json, hash FROM audit_events WHERE chain_id = ? ORDER BY sequence").all(chain);

/**
 * What the writer stored before its fast paths for the same event: its members in the old
 * writer's order (the object literal it built), generic JCS, noble's signature (Ed25519 is
 * deterministic), JSON.stringify.
 */
function genericRow(stored: AuditEvent, privateKey: Uint8Array): { eventJson: string; hash: string } {
  const event: AuditEvent = {
    id: stored.id,
    version: stored.version,
    agentId: stored.agentId,
    sequence: stored.sequence,
    previousEventHash: stored.previousEventHash,
    eventType: stored.eventType,
    timestamp: stored.timestamp,
    signingKeyId: stored.signingKeyId,
    ...(stored.messageId !== undefined ? { messageId: stored.messageId } : {}),
    ...(stored.correlationId !== undefined ? { correlationId: stored.correlationId } : {}),
    ...(stored.counterpartyId !== undefined ? { counterpartyId: stored.counterpartyId } : {}),
    ...(stored.data !== undefined ? { data: stored.data } : {}),
  };
  const jcs = auditEventCanonical(event)!;
  const agentSignature = encodeSignature(ed25519Sign(concatBytes(utf8("ink/audit-event\n"), utf8(jcs)), privateKey));
  return { eventJson: JSON.stringify({ ...event, agentSignature }), hash: auditEventHash(event)! };
}

function expectGenericBytes(db: Db, chain: string, signer: AuditSigner): void {
  const all = rows(db, chain);
  expect(all.length).toBeGreaterThan(0);
  for (const r of all) expect({ sequence: r.sequence, eventJson: r.event_json, hash: r.hash }).toEqual({ sequence: r.sequence, ...genericRow(JSON.parse(r.event_json), signer.privateKey) });
  const events = all.map((r) => JSON.parse(r.event_json) as AuditEvent);
  expect(verifyAuditEventChain(events).ok).toBe(true);
  const keys = resolveSenderKeys({ card: null, agentId: node.agentId! });
  for (const e of events) expect(verifyAuditEventSignature(e, keys).ok).toBe(true);
}

test("extension requests write events byte-identical to the generic writer's, in a chain src/ink verifies", async () => {
  node = bootTestApp();
  const { token, installationId } = await installAcme(node);
  for (const target of ["/ext/v1/identity", "/ext/v1/connections?limit=5", "/ext/v1/layers", "/ext/v1/identity?x=%22%5C%E2%82%AC"]) {
    expect((await extRequest(node, token, "GET", target)).status).toBe(200);
  }
  expect(rows(node.db, installationId).length).toBe(5); // granted + four used
  expectGenericBytes(node.db, installationId, agentSigner(node.ctx()));
});

test("every entry shape appendAuditEvent takes is stored as the generic writer stores it", () => {
  node = bootTestApp();
  const ctx = node.ctx();
  const signer = agentSigner(ctx);
  const entries = [
    { eventType: "message.received", messageId: "m-1", correlationId: "c-1", counterpartyId: "did:web:bob.example" },
    { eventType: "delegation.granted", data: { by: "owner", permissions: ["connections:list"], layers: ["inner"], maxAutonomyTier: "social" } },
    { eventType: "delegation.used", data: { transport: "extension_api", method: "POST", path: "/ext/v1/intents?\u00e9=\"x\"" } },
    { eventType: "receipt.sent", messageId: "m-\u{1D11E}", data: { disposition: "delivered", count: 3, ok: true, none: null } },
    { eventType: "delegation.revoked" },
  ];
  transaction(node.db, (tx) => {
    for (const entry of entries) appendAuditEvent(tx, "chain-shapes", signer, ctx.ids.next(), ctx.clock.now(), entry);
  });
  expectGenericBytes(node.db, "chain-shapes", signer);
});

test("an event another connection appended in between is chained onto, not forked", () => {
  node = bootTestApp();
  const ctx = node.ctx();
  const signer = agentSigner(ctx);
  const append = (db: Db, type: string) => transaction(db, (tx) => appendAuditEvent(tx, "chain-shared", { ...signer, db }, ctx.ids.next(), ctx.clock.now(), { eventType: type }));
  append(node.db, "delegation.granted");
  append(node.db, "delegation.used"); // this connection now remembers sequence 2 as the head
  other = openDatabase(node.db.$client.filename); // e.g. a `kith` CLI command on the live node's file
  append(other, "delegation.revoked");
  append(other, "delegation.granted");
  const next = append(node.db, "delegation.used");
  expect(next.sequence).toBe(5);
  expect(rows(node.db, "chain-shared").map((r) => r.sequence)).toEqual([1, 2, 3, 4, 5]);
  expect(verifyAuditChain(node.db, "chain-shared").ok).toBe(true);
  expectGenericBytes(node.db, "chain-shared", signer);
});

test("an append rolled back, or events removed by another connection, leave no gap", async () => {
  node = bootTestApp();
  const ctx = node.ctx();
  const signer = agentSigner(ctx);
  const append = (tx: Parameters<Parameters<typeof transaction>[1]>[0]) => appendAuditEvent(tx, "chain-rb", signer, ctx.ids.next(), ctx.clock.now(), { eventType: "delegation.used" });
  await ctx.writes.run((tx) => append(tx));
  // a job that appends and then fails is rolled back alone (its savepoint), next to one that succeeds
  const failing = ctx.writes.run((tx) => {
    append(tx);
    throw new Error("later step failed");
  });
  const kept = ctx.writes.run((tx) => append(tx));
  await expect(failing).rejects.toThrow("later step failed");
  expect((await kept).sequence).toBe(2);
  // a whole transaction that appends and then fails
  expect(() =>
    transaction(node.db, (tx) => {
      append(tx);
      throw new Error("rolled back");
    }),
  ).toThrow("rolled back");
  expect((await ctx.writes.run((tx) => append(tx))).sequence).toBe(3);
  other = openDatabase(node.db.$client.filename);
  other.$client.run("DELETE FROM audit_events WHERE chain_id = 'chain-rb' AND sequence = 3");
  expect((await ctx.writes.run((tx) => append(tx))).sequence).toBe(3);
  expect(listAuditEvents(node.db, "chain-rb", 10, 0).events.map((e) => e.sequence)).toEqual([1, 2, 3]);
  expect(verifyAuditChain(node.db, "chain-rb").ok).toBe(true);
});

test("events prepared ahead of their write (signed meanwhile) are stored as built, and appended on the real head when theirs is gone or passed", () => {
  node = bootTestApp();
  const ctx = node.ctx();
  const signer = agentSigner(ctx);
  const prep = (type: string) => prepareAuditEvent(node.db, "chain-prep", signer, ctx.ids.next(), ctx.clock.now(), { eventType: type });
  const store = (p: PreparedAuditEvent) => transaction(node.db, (tx) => appendPreparedAuditEvent(tx, p, signer, nativeEd25519Sign(p.message, signer.privateKey)));
  // a turn's worth, prepared together (each on the one before), stored in order: as built
  const turn = [prep("delegation.granted"), prep("delegation.used"), prep("delegation.used")];
  expect(turn.map((p) => store(p).sequence)).toEqual([1, 2, 3]);
  // one prepared and never stored (its nonce was a replay): the next, built on it, lands on the real head
  prep("delegation.used");
  expect(store(prep("delegation.used")).sequence).toBe(4);
  // another connection appended after the head an event was built on: the primary key refuses it, it goes after
  const late = prep("delegation.used");
  other = openDatabase(node.db.$client.filename);
  transaction(other, (tx) => appendAuditEvent(tx, "chain-prep", { ...signer, db: other! }, ctx.ids.next(), ctx.clock.now(), { eventType: "delegation.revoked" }));
  expect(store(late).sequence).toBe(6);
  expect(store(prep("delegation.used")).sequence).toBe(7);
  expect(rows(node.db, "chain-prep").map((r) => r.sequence)).toEqual([1, 2, 3, 4, 5, 6, 7]);
  expect(verifyAuditChain(node.db, "chain-prep").ok).toBe(true);
  expectGenericBytes(node.db, "chain-prep", signer);
});
