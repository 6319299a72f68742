// The B-trees one accepted intent writes (docs/decisions/inbound-performance.md, "WAL frames per
// intent"). An intent alone in its COMMIT writes at least one WAL frame per B-tree it touches, and
// the next checkpoint copies each again: every index on the inbound tables costs every intent a
// page. This list changes only on purpose: an index added to one of these tables must be needed by
// a query (and its cost measured with `KITH_BENCH_PAGES=20000 bun scripts/bench/inbound-store.ts`).
import { afterEach, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { connections, ownerPolicy } from "../../src/db/schema/index.ts";
import { bootNetworkPair, stopNodes, type NetworkNode } from "../helpers/boot.ts";
import { postIntent, signedIntent } from "../helpers/ink.ts";

const nodes: NetworkNode[] = [];
afterEach(async () => {
  await stopNodes(...nodes.splice(0));
});

/** The B-trees (tables and indexes) whose pages the WAL holds, by name. */
function btreesInWal(node: NetworkNode): string[] {
  const sqlite = node.db.$client;
  const wal = readFileSync(`${sqlite.filename}-wal`);
  const pageSize = wal.readUInt32BE(8);
  const pages = new Set<number>();
  for (let at = 32; at + 24 + pageSize <= wal.length; at += 24 + pageSize) pages.add(wal.readUInt32BE(at));
  const owner = new Map((sqlite.query("SELECT pageno, name FROM dbstat").all() as Array<{ pageno: number; name: string }>).map((r) => [r.pageno, r.name]));
  // Page 1 (the header: written when the file grows) and free-list pages belong to no B-tree.
  return [...new Set([...pages].flatMap((p) => (p !== 1 && owner.has(p) ? [owner.get(p)!] : [])))].sort();
}

test("an accepted intent writes these B-trees and no others: each index is one a query needs", async () => {
  const { alice, bob } = await bootNetworkPair();
  nodes.push(alice, bob);
  const now = alice.clock.now();
  alice.db.insert(connections).values({ id: "con_bob", principal: `key:${bob.agentId!.slice(4)}`, agentId: bob.agentId, cardUrl: bob.cardUrl, status: "connected", initiatedBy: "us", createdAt: now, updatedAt: now }).run();
  // draft_only: the owner's default, under which an intent also becomes a pending action.
  alice.db.insert(ownerPolicy).values({ id: 1, maxAutonomyLevel: "draft_only", maxInboundRate: 1000, acceptForeignAgents: true, updatedAt: 0 }).run();
  const ask = (i: number) => signedIntent("bob", alice, { intent: "ask", payload: { question: `q${i}` } });
  expect((await postIntent(alice, ask(0))).status).toBe(202); // the card is fetched and stored once
  await alice.ctx({ kind: "system", job: "test" }).writes.drain();
  const sqlite = alice.db.$client;
  expect((sqlite.query("PRAGMA wal_checkpoint(TRUNCATE)").get() as { busy: number }).busy).toBe(0);
  alice.clock.advance(1_000); // a later intent: the connection's last_message_at moves
  expect((await postIntent(alice, ask(1))).status).toBe(202); // a new thread, alone in its COMMIT
  expect(btreesInWal(alice)).toEqual(
    [
      "audit_events",
      "sqlite_autoindex_audit_events_1", // (chain_id, sequence): the chain's reads and its fork guard
      "connections", // last_message_at
      "network_counters", // the contacts trigger on connections
      "conversations",
      "sqlite_autoindex_conversations_1",
      "conversations_peer_correlation", // the thread lookup
      "conversations_last_idx", // threads newest first
      "events",
      "sqlite_sequence", // events' and inbound_nonces' AUTOINCREMENT
      "inbound_nonces",
      "inbound_nonces_seen_idx", // the prune, oldest first
      "messages",
      "sqlite_autoindex_messages_1",
      "messages_dedupe", // per-sender envelope id; lookups by envelope id
      "messages_conversation_idx", // a thread's messages
      "messages_direction_idx", // inbox and outbox, newest first
      "messages_peer_idx", // relationship scoring
      "pending_actions",
      "sqlite_autoindex_pending_actions_1",
      "pending_actions_status_idx", // pending items, oldest first
    ].sort(),
  );
});
