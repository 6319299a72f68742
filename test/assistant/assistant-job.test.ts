import { afterEach, describe, expect, test } from "bun:test";
import { eq } from "drizzle-orm";
import { connections, conversations, events, messageLabels, messages, ruleRuns } from "../../src/db/schema/index.ts";
import { readCursor, lastEventSeq } from "../../src/domain/internal/events.ts";
import { MIN_RESCORE_MS } from "../../src/domain/relationships/internal/traffic-state.ts";
import { refreshRelationships } from "../../src/domain/relationships/refresh-relationships.ts";
import { runRules } from "../../src/domain/rules/run-rules.ts";
import { startAssistantJob } from "../../src/jobs/assistant.ts";
import { bootTestApp, type TestNode } from "../helpers/boot.ts";
import { asOwner } from "../helpers/owner.ts";

let node: TestNode;
afterEach(() => node?.close());

const principal = (i: number) => `key:z6MkPeer${String(i).padStart(4, "0")}`;

/** `peers` connected peers, each with `perPeer` inbound pings and their message.received events. */
function seedTraffic(n: TestNode, peers: number, perPeer: number, startAt = 0): void {
  const now = n.clock.now();
  n.db.$client.transaction(() => {
    for (let i = 0; i < peers; i++) {
      const p = principal(i);
      if (startAt === 0) {
        n.db.insert(connections).values({ id: `con_${i}`, principal: p, agentId: `svc:${p.slice(4)}`, status: "connected", initiatedBy: "them", createdAt: now, updatedAt: now, connectedAt: now }).run();
        n.db.insert(conversations).values({ id: `cnv_${i}`, peerPrincipal: p, correlationId: `thread-${i}`, subject: "ping", messageCount: 0, lastMessageAt: now, createdAt: now }).run();
      }
      for (let k = startAt; k < startAt + perPeer; k++) {
        const envelopeId = `env-${i}-${k}`;
        n.db.insert(messages).values({
          id: `msg_${i}_${k}`, envelopeId, direction: "in", peerPrincipal: p, peerAgentId: `svc:${p.slice(4)}`, conversationId: `cnv_${i}`, correlationId: `thread-${i}`,
          intent: "ping", protocol: "ink/0.1", payloadJson: "{}", status: "unread", createdAt: now, receivedAt: now,
        }).run();
        n.db.insert(events).values({ type: "message.received", subjectId: envelopeId, peerPrincipal: p, dataJson: "{}", createdAt: now }).run();
      }
    }
  })();
}

const scoredAt = (n: TestNode, i: number) => n.db.select({ at: connections.layerComputedAt, factors: connections.relationshipJson }).from(connections).where(eq(connections.principal, principal(i))).get()!;

describe("relationship refresh from traffic", () => {
  test("a chunk's traffic is read through the per-peer index, not by scanning every message of the year", () => {
    node = bootTestApp();
    seedTraffic(node, 60, 3);
    // Every statement the refresh prepares, to ask SQLite how it runs the one that counts messages.
    const texts: string[] = [];
    const client = node.db.$client;
    const [prepare, query] = [client.prepare.bind(client), client.query.bind(client)];
    client.prepare = ((text: string, ...rest: never[]) => (texts.push(text), prepare(text, ...rest))) as typeof client.prepare;
    client.query = ((text: string) => (texts.push(text), query(text))) as typeof client.query;
    try {
      while (refreshRelationships(node.ctx()).more);
    } finally {
      client.prepare = prepare;
      client.query = query;
    }
    const counting = texts.filter((t) => /FROM messages/.test(t) && /GROUP BY/.test(t));
    expect(counting.length).toBeGreaterThan(0);
    for (const text of counting) {
      const plan = (client.prepare(`EXPLAIN QUERY PLAN ${text}`).all() as { detail: string }[]).map((r) => r.detail).join("; ");
      expect(plan).toContain("USING INDEX messages_peer_idx");
    }
  });

  test("scores every peer whose traffic changed and moves the cursor to the newest event", () => {
    node = bootTestApp();
    seedTraffic(node, 3, 2);
    const step = refreshRelationships(node.ctx());
    expect(step).toEqual({ read: 6, more: false });
    for (const i of [0, 1, 2]) expect(scoredAt(node, i).at).toBe(node.clock.now());
    expect(readCursor(node.db, "relationships")).toBe(lastEventSeq(node.db));
    expect(refreshRelationships(node.ctx())).toEqual({ read: 0, more: false });
  });

  test("a step asked to yield stops after one chunk; repeated steps finish the work", () => {
    node = bootTestApp();
    seedTraffic(node, 120, 1);
    const first = refreshRelationships(node.ctx(), () => true);
    expect(first).toEqual({ read: 120, more: true }); // events read, nobody scored yet
    let steps = 1;
    let step = first;
    while (step.more) {
      step = refreshRelationships(node.ctx(), () => true);
      steps++;
      expect(steps).toBeLessThan(10);
    }
    // one step reading the events, three chunks of at most 50 peers, one finding nothing left
    expect(steps).toBe(5);
    const scored = node.db.select({ at: connections.layerComputedAt }).from(connections).all();
    expect(scored.every((r) => r.at === node.clock.now())).toBe(true);
  });

  test("a peer's traffic rescores it at most once a minute; the postponed rescore happens after", () => {
    node = bootTestApp();
    seedTraffic(node, 1, 1);
    refreshRelationships(node.ctx());
    const first = scoredAt(node, 0);
    node.clock.advance(1_000);
    seedTraffic(node, 1, 40, 1); // much more traffic: the score would change
    expect(refreshRelationships(node.ctx())).toEqual({ read: 40, more: false });
    expect(scoredAt(node, 0)).toEqual(first); // throttled
    node.clock.advance(MIN_RESCORE_MS);
    refreshRelationships(node.ctx()); // no new event: the postponed peer is still due
    const later = scoredAt(node, 0);
    expect(later.at).toBe(node.clock.now());
    expect(JSON.parse(later.factors!).closeness).toBeGreaterThan(JSON.parse(first.factors!).closeness);
  });
});

describe("automation rules step", () => {
  test("with no enabled rule, the cursor goes to the newest event in one step and nothing is recorded", () => {
    node = bootTestApp();
    seedTraffic(node, 5, 50);
    expect(runRules(node.ctx(), () => true)).toEqual({ seen: 0, more: false });
    expect(readCursor(node.db, "rules")).toBe(lastEventSeq(node.db));
    expect(node.db.select().from(ruleRuns).all()).toHaveLength(0);
  });

  test("with a rule, a step asked to yield handles one message, in order, and the next step goes on", async () => {
    node = bootTestApp();
    const rule = await asOwner(node, "/api/svc/rules", { body: { name: "label pings", match: { intents: ["ping"] }, action: { type: "label", labels: ["seen"] } } });
    expect(rule.status).toBe(201);
    node.clock.advance(1_000); // rules apply to what arrives after them
    runRules(node.ctx()); // the events so far (the rule's own)
    seedTraffic(node, 2, 2);
    const before = readCursor(node.db, "rules");
    expect(runRules(node.ctx(), () => true)).toEqual({ seen: 1, more: true });
    expect(node.db.select().from(messageLabels).all().map((l) => l.messageId)).toEqual(["msg_0_0"]);
    expect(readCursor(node.db, "rules")).toBeGreaterThan(before);
    expect(runRules(node.ctx())).toEqual({ seen: 3, more: false });
    expect(node.db.select().from(messageLabels).all()).toHaveLength(4);
    expect(node.db.select().from(ruleRuns).all()).toHaveLength(4);
  });
});

describe("the assistant job", () => {
  test("gives the event loop back between steps, and finishes the backlog", async () => {
    node = bootTestApp();
    seedTraffic(node, 200, 1);
    let ticks = 0;
    const ticker = setInterval(() => ticks++, 0);
    const job = startAssistantJob({ ctx: () => node.ctx({ kind: "system", job: "assistant" }), log: node.ctx().log, pollMs: 60_000, stepBudgetMs: 0 });
    try {
      for (let i = 0; i < 500 && !(readCursor(node.db, "relationships") === lastEventSeq(node.db) && allScored(node)); i++) await Bun.sleep(2);
      expect(readCursor(node.db, "relationships")).toBe(lastEventSeq(node.db));
      expect(allScored(node)).toBe(true);
      expect(ticks).toBeGreaterThan(3); // other callbacks ran while the backlog was worked through
    } finally {
      clearInterval(ticker);
      await job.stop();
    }
  });

  test("working through a relationships backlog does not rerun the rules (and commit their cursor) in every step", async () => {
    node = bootTestApp();
    seedTraffic(node, 200, 1);
    // Counts commits of the rules cursor; events keep arriving while the backlog is worked through
    // (as under load), so a rules run in every step would move and commit the cursor every time.
    node.db.$client.exec(`CREATE TEMP TABLE cursor_writes (n INTEGER)`);
    node.db.$client.exec(`CREATE TEMP TRIGGER count_rules_cursor AFTER UPDATE ON job_cursors WHEN new.name = 'rules' BEGIN INSERT INTO cursor_writes VALUES (1); END`);
    node.db.$client.exec(`CREATE TEMP TRIGGER count_rules_cursor_insert AFTER INSERT ON job_cursors WHEN new.name = 'rules' BEGIN INSERT INTO cursor_writes VALUES (1); END`);
    let arrived = 0;
    const arriving = setInterval(() => {
      if (arrived++ < 40) node.db.insert(events).values({ type: "note.added", createdAt: node.clock.now() }).run();
    }, 0);
    const job = startAssistantJob({ ctx: () => node.ctx({ kind: "system", job: "assistant" }), log: node.ctx().log, pollMs: 60_000, stepBudgetMs: 0 });
    try {
      for (let i = 0; i < 500 && !(arrived >= 40 && readCursor(node.db, "relationships") === lastEventSeq(node.db) && allScored(node)); i++) await Bun.sleep(2);
      expect(allScored(node)).toBe(true);
      const writes = node.db.$client.query<{ n: number }, []>(`SELECT count(*) AS n FROM cursor_writes`).get()!.n;
      expect(writes).toBeLessThanOrEqual(1); // one rules run for the pass (steps of the backlog: dozens)
    } finally {
      clearInterval(arriving);
      await job.stop();
    }
  });

  test("stop waits for the step in progress and nothing runs after it", async () => {
    node = bootTestApp();
    seedTraffic(node, 100, 1);
    const job = startAssistantJob({ ctx: () => node.ctx({ kind: "system", job: "assistant" }), log: node.ctx().log, pollMs: 60_000, stepBudgetMs: 0 });
    await Bun.sleep(1);
    await job.stop();
    const cursor = readCursor(node.db, "relationships");
    const scored = node.db.select({ at: connections.layerComputedAt }).from(connections).all().filter((r) => r.at !== null).length;
    await Bun.sleep(20);
    expect(readCursor(node.db, "relationships")).toBe(cursor);
    expect(node.db.select({ at: connections.layerComputedAt }).from(connections).all().filter((r) => r.at !== null).length).toBe(scored);
  });
});

function allScored(n: TestNode): boolean {
  return n.db.select({ at: connections.layerComputedAt }).from(connections).all().every((r) => r.at !== null);
}

// Under inbound load the job runs after every group commit; a cursor move past events it had
// nothing to do for must not fsync on the event loop (synchronous=FULL inside COMMIT), which
// stalled every request (issue 18). A temp trigger records the connection's setting at each write.
describe("the jobs' cursor-only commits", () => {
  test("commit with synchronous=NORMAL and leave the connection at FULL; a rule's own work stays FULL", async () => {
    node = bootTestApp();
    const sqlite = node.db.$client;
    sqlite.exec("CREATE TEMP TABLE seen_sync (name TEXT, level INTEGER)");
    for (const op of ["INSERT", "UPDATE"]) sqlite.exec(`CREATE TEMP TRIGGER cursor_sync_${op} AFTER ${op} ON job_cursors BEGIN INSERT INTO seen_sync SELECT NEW.name, synchronous FROM pragma_synchronous; END`);
    seedTraffic(node, 3, 4);
    runRules(node.ctx());
    refreshRelationships(node.ctx());
    const seen = () => sqlite.query("SELECT name, level FROM seen_sync").all() as Array<{ name: string; level: number }>;
    expect([...new Set(seen().map((r) => r.name))].sort()).toEqual(["relationships", "rules"]);
    expect(seen().every((r) => r.level === 1)).toBe(true);
    expect((sqlite.query("PRAGMA synchronous").get() as { synchronous: number }).synchronous).toBe(2);
    // with a rule, the message it acted on and its cursor commit together at FULL
    sqlite.exec("DELETE FROM seen_sync");
    const rule = await asOwner(node, "/api/svc/rules", { body: { name: "label pings", match: { intents: ["ping"] }, action: { type: "label", labels: ["seen"] } } });
    expect(rule.status).toBe(201);
    node.clock.advance(1_000);
    runRules(node.ctx());
    sqlite.exec("DELETE FROM seen_sync");
    seedTraffic(node, 1, 1, 10);
    runRules(node.ctx());
    expect(node.db.select().from(messageLabels).all()).toHaveLength(1);
    expect(seen().some((r) => r.name === "rules" && r.level === 2)).toBe(true);
  });
});
