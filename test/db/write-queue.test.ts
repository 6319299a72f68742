import { afterEach, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { closeDatabase, openDatabase, type Db } from "../../src/db/client.ts";
import { createWriteQueue, type WriteQueue } from "../../src/db/write-queue.ts";

let dir: string;
let db: Db;
let queue: WriteQueue;

function open(options: Omit<Parameters<typeof createWriteQueue>[1] & {}, "walFile"> = {}): void {
  dir = mkdtempSync(join(tmpdir(), "kith-wq-"));
  const file = join(dir, "q.db");
  db = openDatabase(file);
  db.$client.exec("CREATE TABLE parent (id INTEGER PRIMARY KEY); CREATE TABLE item (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE, parent INTEGER REFERENCES parent(id))");
  queue = createWriteQueue(db, { walFile: `${file}-wal`, ...options });
}
const turn = () => new Promise((r) => setImmediate(r));

afterEach(async () => {
  await queue?.close();
  closeDatabase(db);
  rmSync(dir, { recursive: true, force: true });
});

const insert = (name: string) => db.$client.query("INSERT INTO item (name) VALUES (?) RETURNING id").get(name) as { id: number };
const names = () => (db.$client.query("SELECT name FROM item ORDER BY id").all() as Array<{ name: string }>).map((r) => r.name);

describe("group commit write queue", () => {
  test("writes of one event-loop turn share one transaction and each gets its own result", async () => {
    open();
    const seenBy: number[] = [];
    const results = await Promise.all(
      ["a", "b", "c"].map((name) =>
        queue.run(() => {
          seenBy.push(names().length); // earlier jobs of the batch are visible: same transaction
          expect(db.$client.inTransaction).toBe(true);
          return insert(name).id;
        }),
      ),
    );
    expect(results).toEqual([1, 2, 3]);
    expect(seenBy).toEqual([0, 1, 2]);
    expect(names()).toEqual(["a", "b", "c"]);
    expect(db.$client.inTransaction).toBe(false);
  });

  test("a job that throws is rolled back alone; the others of its batch commit", async () => {
    open();
    const outcomes = await Promise.allSettled([
      queue.run(() => insert("a")),
      queue.run(() => {
        insert("b");
        throw new Error("refused");
      }),
      queue.run(() => insert("a")), // unique violation: refused by SQLite itself
      queue.run(() => insert("c")),
    ]);
    expect(outcomes.map((o) => o.status)).toEqual(["fulfilled", "rejected", "rejected", "fulfilled"]);
    expect((outcomes[1] as PromiseRejectedResult).reason.message).toBe("refused");
    expect(String((outcomes[2] as PromiseRejectedResult).reason)).toMatch(/UNIQUE/);
    expect(names()).toEqual(["a", "c"]);
  });

  test("a job alone in its batch that throws leaves nothing behind, and the next one commits", async () => {
    open();
    await expect(
      queue.run(() => {
        insert("lonely");
        throw new Error("refused");
      }),
    ).rejects.toThrow("refused");
    expect(names()).toEqual([]);
    expect(db.$client.inTransaction).toBe(false);
    expect(await queue.run(() => insert("next").id)).toBe(1);
    expect(names()).toEqual(["next"]);
  });

  test("a failed COMMIT rejects every job of the batch and keeps none of it", async () => {
    open();
    const outcomes = await Promise.allSettled([
      queue.run(() => insert("a")),
      queue.run(() => {
        // a deferred foreign key is checked at COMMIT, which then fails
        db.$client.exec("PRAGMA defer_foreign_keys = ON");
        db.$client.query("INSERT INTO item (name, parent) VALUES ('orphan', 42)").run();
      }),
    ]);
    expect(outcomes.map((o) => o.status)).toEqual(["rejected", "rejected"]);
    expect(String((outcomes[0] as PromiseRejectedResult).reason)).toMatch(/FOREIGN KEY/);
    expect(names()).toEqual([]);
    expect(db.$client.inTransaction).toBe(false);
    expect(await queue.run(() => insert("after").id)).toBeGreaterThan(0);
  });

  test("the connection is back to synchronous=FULL after a batch, for every other writer", async () => {
    open();
    await queue.run(() => insert("a"));
    expect((db.$client.query("PRAGMA synchronous").get() as { synchronous: number }).synchronous).toBe(2);
  });

  test("drain waits for everything submitted, across more than one batch", async () => {
    open();
    const pending = Array.from({ length: 600 }, (_, i) => queue.run(() => insert(`n${i}`)));
    await queue.drain();
    expect(names()).toHaveLength(600); // more than one batch (512 per transaction)
    await Promise.all(pending);
  });

  test("writes that come while the WAL's fsync runs wait for it and then commit together", async () => {
    open();
    let firstDone = false;
    const first = queue.run(() => insert("first")).then(() => (firstDone = true));
    await new Promise((r) => setImmediate(r)); // the first write is committed; its fsync runs
    const before = queue.commits;
    const during: Promise<unknown>[] = [];
    // One write a turn of the event loop until the first is durable (its fsync has ended).
    while (!firstDone) {
      const name = `during-${during.length}`;
      during.push(queue.run(() => insert(name)));
      await new Promise((r) => setImmediate(r));
    }
    await Promise.all(during);
    await first;
    // One commit for all of them (they committed one by one before: as many commits as writes).
    // At most one commit per 512 writes (the batch limit) where they committed one turn at a time
    // before (as many commits as writes here). An fsync over within one turn leaves one write in
    // the window, which cannot tell the two apart; here it usually spans 2 to 500 turns.
    expect(during.length).toBeGreaterThan(0);
    expect(queue.commits - before).toBeLessThanOrEqual(Math.ceil(during.length / 512));
    expect(names()).toEqual(["first", ...during.map((_, i) => `during-${i}`)]);
  });

  describe("linger: a small batch waits for company when writes come often", () => {
    // A clock that advances `step` ms per reading: the queue reads it once per submitted write, so
    // `step` sets the arrival rate it sees.
    const clock = (step: number) => {
      let t = 0;
      return () => (t += step);
    };

    test("writes that come more often than the linger share one COMMIT, which the fourth starts", async () => {
      open({ lingerMs: 60_000, now: clock(0.2) });
      const ran: string[] = [];
      const before = queue.commits;
      const writes: Promise<unknown>[] = [];
      for (const name of ["a", "b", "c"]) {
        writes.push(queue.run(() => (ran.push(name), insert(name))));
        await turn();
        await turn();
        expect(ran).toEqual([]); // still waiting: alone, each would have committed by now
      }
      writes.push(queue.run(() => (ran.push("d"), insert("d"))));
      await Promise.all(writes);
      expect(ran).toEqual(["a", "b", "c", "d"]);
      expect(queue.commits - before).toBe(1);
    });

    test("at a rate that promises one more write within the linger, the second starts the COMMIT", async () => {
      let t = 0;
      open({ lingerMs: 80, now: () => t }); // a first gap counts as 50 ms: one more expected in 80
      const ran: string[] = [];
      const before = queue.commits;
      const first = queue.run(() => (ran.push("a"), insert("a")));
      await turn();
      await turn();
      expect(ran).toEqual([]);
      t = 1;
      const second = queue.run(() => (ran.push("b"), insert("b")));
      await turn();
      expect(ran).toEqual(["a", "b"]); // in the turn after the second came, not at the timer
      await Promise.all([first, second]);
      expect(queue.commits - before).toBe(1);
    });

    test("a write left alone commits when its linger ends, and is durable as before", async () => {
      open({ lingerMs: 30, now: clock(0.2) });
      const before = queue.commits;
      const result = await queue.run(() => insert("alone"));
      expect(result.id).toBe(1);
      expect(queue.commits - before).toBe(1);
      expect(names()).toEqual(["alone"]);
    });

    test("at a low rate a write commits in the turn after it is submitted (no wait)", async () => {
      open({ lingerMs: 20, now: clock(100) });
      for (const name of ["x", "y", "z"]) {
        let ran = false;
        const p = queue.run(() => ((ran = true), insert(name)));
        await turn();
        expect(ran).toBe(true);
        await p;
      }
    });

    test("a clock that steps back between a write's arrival and its flush holds it no longer than the linger", async () => {
      let t = 100_000;
      open({ lingerMs: 1, now: () => t });
      for (let i = 0; i < 80; i++) {
        t += 0.1; // writes 0.1 ms apart: the rate says linger
        await queue.run(() => insert(`w${i}`));
      }
      t += 0.1;
      const late = queue.run(() => insert("late"));
      t = 0; // the flush reads a clock 100 s behind the write's arrival (it waited 100 s)
      await late;
      expect(names()).toContain("late");
    });

    test("drain and close end a running linger (the write commits at once), and writes submitted during a drain do not linger", async () => {
      // A clock that never moves: the first gap counts as 50 ms, under the linger, so each write
      // alone would wait the whole minute for company; nothing but the drain can end the wait.
      open({ lingerMs: 60_000, now: () => 0 });
      const before = queue.commits;
      let ranA = false;
      const a = queue.run(() => ((ranA = true), insert("a")));
      await turn();
      await turn();
      expect(ranA).toBe(false); // lingering
      const drained = queue.drain();
      const b = queue.run(() => insert("b")); // comes while the drain runs
      await drained;
      await Promise.all([a, b]);
      expect(names()).toEqual(["a", "b"]);
      expect(queue.commits - before).toBeLessThanOrEqual(2);
      // After the drain, writes linger again; close() ends that linger too and the write is durable.
      let ranC = false;
      const c = queue.run(() => ((ranC = true), insert("c")));
      await turn();
      await turn();
      expect(ranC).toBe(false);
      await queue.close();
      await c;
      expect(names()).toEqual(["a", "b", "c"]);
    });

    test("lingerMs 0 turns it off", async () => {
      open({ lingerMs: 0, now: clock(0.01) });
      let ran = false;
      const p = queue.run(() => ((ran = true), insert("now")));
      await turn();
      expect(ran).toBe(true);
      await p;
    });
  });
});
