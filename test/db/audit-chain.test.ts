import { afterEach, expect, test } from "bun:test";
import { sql } from "drizzle-orm";
import { transaction } from "../../src/db/client.ts";
import { agentSigner } from "../../src/domain/extensions/internal/agent-signer.ts";
import { auditEventsAbout, appendAuditEvent, listAuditEvents, verifyAuditChain } from "../../src/domain/internal/audit-chain.ts";
import { recordInkEvent } from "../../src/domain/audit/record-ink-event.ts";
import { inkChainOf } from "../../src/domain/internal/ink-chain.ts";
import { verifyAuditEventSignature } from "../../src/ink/profiles.ts";
import { resolveSenderKeys } from "../../src/ink/index.ts";
import { bootTestApp, type TestNode } from "../helpers/boot.ts";

// One audit mechanism (AUDIT.md §2) for the extension runtime's chains (keyed by installation id)
// and the node's INK log (one chain per peer, `ink:<principal>`): one table, chains independent.
let node: TestNode;
afterEach(() => node?.close());

const BOB = "key:z6MkBob";
const CAROL = "key:z6MkCarol";

test("an installation's chain and the INK chains of two peers share the table and stay independent +1 chains, each verifying", async () => {
  node = bootTestApp();
  const ctx = node.ctx();
  const signer = agentSigner(ctx);
  transaction(node.db, (tx) => {
    appendAuditEvent(tx, "inst-1", signer, ctx.ids.next(), ctx.clock.now(), { eventType: "delegation.granted", data: { by: "owner" } });
    recordInkEvent(tx, ctx, BOB, { eventType: "message.sent", messageId: "m-1", counterpartyId: BOB });
    recordInkEvent(tx, ctx, CAROL, { eventType: "message.received", messageId: "m-2", counterpartyId: CAROL });
    recordInkEvent(tx, ctx, BOB, { eventType: "message.received", messageId: "m-3", counterpartyId: BOB });
    appendAuditEvent(tx, "inst-1", signer, ctx.ids.next(), ctx.clock.now(), { eventType: "delegation.used", data: { transport: "extension_api" } });
    recordInkEvent(tx, ctx, BOB, { eventType: "receipt.received", messageId: "m-1", counterpartyId: BOB });
  });

  const bob = listAuditEvents(node.db, inkChainOf(BOB), 10, 0);
  expect(bob.total).toBe(3);
  expect(bob.events.map((e) => [e.sequence, e.eventType])).toEqual([
    [1, "message.sent"],
    [2, "message.received"],
    [3, "receipt.received"],
  ]);
  expect(bob.events[0]!.previousEventHash).toBeNull();
  expect(listAuditEvents(node.db, "inst-1", 10, 0).events.map((e) => e.sequence)).toEqual([1, 2]);
  expect(listAuditEvents(node.db, inkChainOf(CAROL), 10, 0).events.map((e) => e.sequence)).toEqual([1]);
  for (const chain of ["inst-1", inkChainOf(BOB), inkChainOf(CAROL)]) expect({ chain, ok: verifyAuditChain(node.db, chain).ok }).toEqual({ chain, ok: true });

  // Every event is the agent's, signed by its active key (the same signer for both kinds).
  const keys = resolveSenderKeys({ card: null, agentId: node.agentId! });
  for (const e of [...bob.events, ...listAuditEvents(node.db, "inst-1", 10, 0).events]) {
    expect(e.agentId).toBe(node.agentId!);
    expect(verifyAuditEventSignature(e, keys).ok).toBe(true);
  }

  // A message's slice runs from its first event to its last, with what lies between (AUDIT §4 continuity).
  expect(auditEventsAbout(node.db, inkChainOf(BOB), "m-1").map((e) => e.sequence)).toEqual([1, 2, 3]);
  expect(auditEventsAbout(node.db, inkChainOf(BOB), "m-3").map((e) => e.sequence)).toEqual([2]);
  expect(auditEventsAbout(node.db, inkChainOf(BOB), "m-2")).toEqual([]);
  expect(auditEventsAbout(node.db, inkChainOf(CAROL), "m-2").map((e) => e.eventType)).toEqual(["message.received"]);
});

test("a stored event changed afterwards breaks its own chain's verification, not the others'", () => {
  node = bootTestApp();
  const ctx = node.ctx();
  const signer = agentSigner(ctx);
  transaction(node.db, (tx) => {
    for (const type of ["message.sent", "message.received", "receipt.sent"]) recordInkEvent(tx, ctx, BOB, { eventType: type, messageId: "m-1" });
    appendAuditEvent(tx, "inst-1", signer, ctx.ids.next(), ctx.clock.now(), { eventType: "delegation.granted" });
    appendAuditEvent(tx, "inst-1", signer, ctx.ids.next(), ctx.clock.now(), { eventType: "delegation.used" });
  });
  node.db.run(sql`UPDATE audit_events SET event_json = json_set(event_json, '$.eventType', 'message.forged') WHERE chain_id = ${inkChainOf(BOB)} AND sequence = 1`);
  expect(verifyAuditChain(node.db, inkChainOf(BOB))).toEqual({ ok: false, reason: "previous_hash_mismatch", index: 1 });
  expect(verifyAuditChain(node.db, "inst-1").ok).toBe(true);
});
