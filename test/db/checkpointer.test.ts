import { afterEach, describe, expect, test } from "bun:test";
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { closeDatabase, openDatabase, type Db } from "../../src/db/client.ts";
import { createWriteQueue, type WriteQueue } from "../../src/db/write-queue.ts";

let dir: string;
let file: string;
let db: Db;
let queue: WriteQueue;
let failures: string[];

function open(checkpoints: { jobsPerCheckpoint?: number; targetFrames?: number; entry?: string } = {}): void {
  dir = mkdtempSync(join(tmpdir(), "kith-ckpt-"));
  file = join(dir, "c.db");
  db = openDatabase(file);
  db.$client.exec("CREATE TABLE item (id INTEGER PRIMARY KEY, body TEXT NOT NULL)");
  failures = [];
  queue = createWriteQueue(db, { walFile: `${file}-wal`, checkpoints: { ...checkpoints, onFailure: (reason) => failures.push(reason) } });
}

afterEach(async () => {
  await queue?.close();
  closeDatabase(db);
  rmSync(dir, { recursive: true, force: true });
});

/** `n` group-commit writes of ~8 KB each, in batches of 16 (one event-loop turn each). */
async function write(n: number): Promise<void> {
  for (let done = 0; done < n; done += 16) {
    await Promise.all(Array.from({ length: Math.min(16, n - done) }, () => queue.run(() => db.$client.query("INSERT INTO item (body) VALUES (?)").run("x".repeat(8_000)))));
  }
}

/**
 * `n` writes of ~16 KB, one a millisecond without waiting for the previous one (as inbound requests
 * arrive): the connection always has a commit coming.
 */
async function stream(n: number): Promise<void> {
  const pending: Promise<unknown>[] = [];
  for (let i = 0; i < n; i++) {
    pending.push(queue.run(() => db.$client.query("INSERT INTO item (body) VALUES (?)").run("x".repeat(16_000))));
    await Bun.sleep(1);
  }
  await Promise.all(pending);
}

/** The WAL header's checkpoint sequence number: SQLite adds one each time the WAL restarts from its beginning. */
const walRestarts = () => readFileSync(`${file}-wal`).readUInt32BE(12);

const autocheckpoint = () => (db.$client.query("PRAGMA wal_autocheckpoint").get() as { wal_autocheckpoint: number }).wal_autocheckpoint;

async function until(done: () => boolean): Promise<void> {
  for (let i = 0; i < 500 && !done(); i++) await Bun.sleep(10);
}

describe("WAL checkpoints off the event loop", () => {
  test("a busy queue has the Worker copy the WAL into the database file, where SQLite alone would not have yet", async () => {
    open({ jobsPerCheckpoint: 32 });
    const before = statSync(file).size;
    await write(64); // ~130 pages: under SQLite's own 1,000-page automatic checkpoint
    await until(() => queue.checkpoints!.stats.runs >= 1);
    expect(queue.checkpoints!.stats).toEqual({ runs: expect.any(Number), failed: false, jobsPerCheckpoint: 32 });
    expect(queue.checkpoints!.stats.runs).toBeGreaterThanOrEqual(1);
    // The first 32 writes (~64 pages of 8 KB rows) are in the database file itself now.
    expect(statSync(file).size - before).toBeGreaterThan(32 * 8_000);
    expect(autocheckpoint()).toBe(16_000); // the connection's own checkpoint is the fallback meanwhile
    expect(failures).toEqual([]);
    expect((db.$client.query("SELECT count(*) AS n FROM item").get() as { n: number }).n).toBe(64);
  });

  test("under a steady stream of writes the WAL restarts at every checkpoint instead of growing to the event loop's fallback", async () => {
    open({ jobsPerCheckpoint: 32 });
    await write(16);
    const restarts = walRestarts();
    // ~5 frames each: 5,000 frames in all, past the connection's old fallback of 4,000 (where every
    // COMMIT checkpointed on the event loop) if the WAL were never restarted.
    await stream(1_000);
    expect(queue.checkpoints!.stats.runs).toBeGreaterThanOrEqual(10);
    expect(walRestarts() - restarts).toBeGreaterThanOrEqual(5);
    expect(failures).toEqual([]);
    expect((db.$client.query("SELECT count(*) AS n FROM item").get() as { n: number }).n).toBe(1_016);
  });

  test("a cycle's length follows the WAL frames its writes make", async () => {
    // ~5 frames a write (16 KB rows): a cycle aiming at 2,000 frames is ~400 writes, not the first 100.
    open({ jobsPerCheckpoint: 100, targetFrames: 2_000 });
    await stream(1_600);
    const { runs, jobsPerCheckpoint } = queue.checkpoints!.stats;
    expect(runs).toBeGreaterThanOrEqual(3);
    expect(jobsPerCheckpoint).toBeGreaterThan(200);
    expect(jobsPerCheckpoint).toBeLessThan(1_000);
    expect(failures).toEqual([]);
  });

  test("the group commit is held only for the last pass of a checkpoint, up to its limit; after a miss, until that pass ends", async () => {
    // A stand-in Worker: answers the long and the chase passes at once, the last pass after 300 ms.
    const slow = join(mkdtempSync(join(tmpdir(), "kith-ckpt-slow-")), "worker.ts");
    writeFileSync(slow, `let n = 0; self.onmessage = (e) => { if (e.data.type === "close") return self.postMessage({ type: "closed" }); const reply = () => self.postMessage({ type: "checkpointed", busy: 0, log: 0, checkpointed: 0 }); if (++n % 3 === 0) setTimeout(reply, 300); else reply(); };`);
    open({ jobsPerCheckpoint: 16, entry: slow });
    const heldWrite = async (body: string) => {
      await until(() => queue.checkpoints!.holding);
      expect(queue.checkpoints!.holding).toBe(true);
      await queue.run(() => db.$client.query("INSERT INTO item (body) VALUES (?)").run(body));
      return { runs: queue.checkpoints!.stats.runs, holding: queue.checkpoints!.holding };
    };
    await write(16);
    // The hold ends at its limit, long before the last pass answers: the write is committed meanwhile.
    expect(await heldWrite("held-1")).toEqual({ runs: 0, holding: false });
    await until(() => queue.checkpoints!.stats.runs === 1);
    // That cycle missed its restart: the next hold lasts until its last pass has answered.
    await write(16);
    expect(await heldWrite("held-2")).toEqual({ runs: 2, holding: false });
    expect((db.$client.query("SELECT count(*) AS n FROM item WHERE body LIKE 'held-%'").get() as { n: number }).n).toBe(2);
    rmSync(join(slow, ".."), { recursive: true, force: true });
  });

  test.if(process.platform === "linux")("the Worker runs at a lower priority than the event loop (Linux)", async () => {
    open({ jobsPerCheckpoint: 16 });
    await write(32);
    await until(() => queue.checkpoints!.stats.runs >= 1);
    // Field 19 of /proc/<pid>/task/<tid>/stat is the thread's nice value.
    const nice = (tid: string) => Number(readFileSync(`/proc/${process.pid}/task/${tid}/stat`, "latin1").split(") ")[1]!.split(" ")[16]);
    const threads = readdirSync(`/proc/${process.pid}/task`);
    // Relative to the node's own: the suite itself may run under `nice`.
    const own = nice(String(process.pid));
    expect(threads.filter((tid) => nice(tid) === Math.min(19, own + 10)).length).toBeGreaterThanOrEqual(1);
  });

  test("a queue that has not seen enough writes starts no Worker and leaves SQLite's checkpoints alone", async () => {
    open({ jobsPerCheckpoint: 1_000 });
    await write(40);
    expect(queue.checkpoints!.stats).toEqual({ runs: 0, failed: false, jobsPerCheckpoint: 1_000 });
    expect(autocheckpoint()).toBe(1_000);
  });

  test("closing waits for the Worker, ends it, and gives the connection its own checkpoints back; nothing is lost", async () => {
    open({ jobsPerCheckpoint: 16 });
    await write(64);
    await queue.close();
    expect(autocheckpoint()).toBe(1_000);
    const runs = queue.checkpoints!.stats.runs;
    closeDatabase(db);
    db = openDatabase(file);
    expect((db.$client.query("SELECT count(*) AS n FROM item").get() as { n: number }).n).toBe(64);
    expect(queue.checkpoints!.stats.runs).toBe(runs);
    expect(failures).toEqual([]);
  });

  test("a Worker that fails is reported once, SQLite checkpoints on the event loop again, and writes go on", async () => {
    const broken = join(mkdtempSync(join(tmpdir(), "kith-ckpt-bad-")), "worker.ts");
    writeFileSync(broken, `self.onmessage = () => { throw new Error("checkpoint worker broke"); };`);
    open({ jobsPerCheckpoint: 16, entry: broken });
    await write(32);
    await until(() => queue.checkpoints!.stats.failed);
    expect(queue.checkpoints!.stats.failed).toBe(true);
    expect(failures).toHaveLength(1);
    expect(failures[0]).toContain("checkpoint worker broke");
    expect(autocheckpoint()).toBe(1_000);
    await write(48);
    expect(failures).toHaveLength(1);
    expect((db.$client.query("SELECT count(*) AS n FROM item").get() as { n: number }).n).toBe(80);
    rmSync(join(broken, ".."), { recursive: true, force: true });
  });
});
