import { afterEach, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { closeDatabase, openDatabase, transaction, type Db } from "../../src/db/client.ts";
import { migrate, MIGRATIONS } from "../../src/db/migrate.ts";
import { insertNonce, narrowNonceHashForTests, nonceIndexSize, nonceSeen, preloadNonceIndex, pruneNonceRows } from "../../src/db/nonce-index.ts";
import { createWriteQueue } from "../../src/db/write-queue.ts";

// The replay-nonce store answers from a per-connection index over an append-only table
// (src/db/nonce-index.ts); the table stays the truth. Each test is a way for the two to drift.
const dirs: string[] = [];
const open: Db[] = [];
afterEach(() => {
  for (const db of open.splice(0)) closeDatabase(db);
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function newFile(migrations = MIGRATIONS): string {
  const dir = mkdtempSync(join(tmpdir(), "kith-nonces-"));
  dirs.push(dir);
  const file = join(dir, "n.db");
  const db = openDatabase(file);
  migrate(db.$client, { file, now: 0, migrations });
  closeDatabase(db);
  return file;
}
function connect(file: string): Db {
  const db = openDatabase(file);
  db.$client.exec("PRAGMA synchronous = OFF"); // durability is not the subject here (crash.process.test.ts)
  open.push(db);
  return db;
}
const rows = (db: Db) => db.$client.query<{ n: number }, []>("SELECT count(*) AS n FROM inbound_nonces").get()!.n;
const record = (db: Db, scope: string, nonce: string, now = 1_000) => transaction(db, () => insertNonce(db, scope, nonce, now));

test("a nonce is new once per scope, and stays spent for a connection opened later (rebuilt from the table)", () => {
  const file = newFile();
  const a = connect(file);
  expect(record(a, "key:z6MkA", "n1")).toBe(true);
  expect(record(a, "key:z6MkA", "n1")).toBe(false);
  expect(record(a, "key:z6MkB", "n1")).toBe(true); // the same nonce from another sender
  // Scope and nonce are kept apart whatever they contain.
  expect(record(a, "ab", "c")).toBe(true);
  expect(record(a, "a", "bc")).toBe(true);
  expect(rows(a)).toBe(4);
  closeDatabase(open.shift()!);
  const b = connect(file);
  expect(nonceSeen(b, "key:z6MkA", "n1")).toBe(true);
  expect(record(b, "key:z6MkB", "n1")).toBe(false);
  expect(record(b, "key:z6MkC", "n1")).toBe(true);
  expect(nonceSeen(b, "a", "bc")).toBe(true);
  expect(nonceSeen(b, "ab", "cd")).toBe(false);
});

test("a nonce recorded by a transaction or savepoint that rolls back is not spent, even once its id is reused", async () => {
  const file = newFile();
  const db = connect(file);
  expect(() => transaction(db, () => {
    expect(insertNonce(db, "s", "rolled-back", 1)).toBe(true);
    throw new Error("refused later in the verb");
  })).toThrow("refused later");
  expect(rows(db)).toBe(0);
  expect(nonceSeen(db, "s", "rolled-back")).toBe(false);
  // The group commit: one job's savepoint rolls back, its neighbours commit; the rolled-back id is
  // then taken by the next nonce, and the first is still not spent.
  const queue = createWriteQueue(db);
  const results = await Promise.allSettled([
    queue.run(() => insertNonce(db, "s", "kept-1", 2)),
    queue.run(() => {
      insertNonce(db, "s", "undone", 2);
      throw new Error("refused");
    }),
  ]);
  expect(results.map((r) => r.status)).toEqual(["fulfilled", "rejected"]);
  expect(record(db, "s", "takes-the-id")).toBe(true);
  expect(record(db, "s", "undone")).toBe(true);
  expect(record(db, "s", "undone")).toBe(false);
  expect(record(db, "s", "kept-1")).toBe(false);
  expect(record(db, "s", "rolled-back")).toBe(true);
  await queue.close();
});

test("another connection's nonces count on this connection's very next check, and after a prune emptied the table", () => {
  const file = newFile();
  const a = connect(file);
  const b = connect(file);
  expect(record(a, "s", "from-a")).toBe(true); // a's index is loaded
  expect(record(b, "s", "from-b")).toBe(true); // b's too, then b writes
  expect(nonceSeen(a, "s", "from-b")).toBe(true);
  expect(record(a, "s", "from-b")).toBe(false);
  expect(record(b, "s", "from-a")).toBe(false);
  // a prunes every row; b records new nonces (a reused id would hide them from a's catch-up)
  expect(pruneNonceRows(a, 10_000)).toBe(2);
  expect(record(b, "s", "after-prune", 20_000)).toBe(true);
  expect(record(a, "s", "after-prune", 20_000)).toBe(false);
  expect(record(a, "s", "from-a", 20_000)).toBe(true); // pruned: old enough to be accepted again, as before
  expect(record(b, "s", "from-a", 20_000)).toBe(false);
});

test("a prune forgets what it deleted, here or on another connection, and keeps what is in the window", () => {
  const file = newFile();
  const a = connect(file);
  for (let i = 0; i < 50; i++) expect(record(a, "s", `old-${i}`, 1_000 + i)).toBe(true);
  for (let i = 0; i < 50; i++) expect(record(a, "s", `new-${i}`, 5_000 + i)).toBe(true);
  expect(() => transaction(a, () => {
    insertNonce(a, "s", "stale", 6_000);
    throw new Error("rolled back");
  })).toThrow();
  expect(nonceIndexSize(a)).toBe(101);
  expect(pruneNonceRows(a, 5_000)).toBe(50);
  expect(nonceIndexSize(a)).toBe(51); // the rolled-back entry waits for the window to pass it
  expect(record(a, "s", "old-3", 7_000)).toBe(true);
  expect(record(a, "s", "new-3", 7_000)).toBe(false);
  // Pruned by another connection: this one's entries are stale, and its next prune sweeps them.
  const b = connect(file);
  expect(pruneNonceRows(b, 8_000)).toBe(51);
  expect(record(a, "s", "new-4", 9_000)).toBe(true);
  expect(pruneNonceRows(a, 8_000)).toBe(0);
  expect(nonceIndexSize(a)).toBe(1);
  expect(rows(a)).toBe(1);
});

test("upgrading a database keeps its recorded nonces spent", () => {
  // A database as the migrations before the append-only one left it (later ones apply after it).
  const at = MIGRATIONS.findIndex((m) => m.sql.some((s) => s.includes("__new_inbound_nonces")));
  expect(at).toBeGreaterThan(0);
  const before = MIGRATIONS.slice(0, at);
  const file = newFile(before);
  const old = connect(file);
  old.$client.query("INSERT INTO inbound_nonces (scope, nonce, seen_at) VALUES (?, ?, ?)").run("key:z6MkA", "spent", 1);
  old.$client.query("INSERT INTO inbound_nonces (scope, nonce, seen_at) VALUES (?, ?, ?)").run("key:z6MkA", "older", 0);
  migrate(old.$client, { file: null, now: 0 });
  closeDatabase(open.shift()!);
  const db = connect(file);
  expect(record(db, "key:z6MkA", "spent")).toBe(false);
  expect(record(db, "key:z6MkA", "older")).toBe(false);
  expect(record(db, "key:z6MkA", "fresh")).toBe(true);
  expect(db.$client.query<{ nonce: string }, []>("SELECT nonce FROM inbound_nonces ORDER BY id").all().map((r) => r.nonce)).toEqual(["older", "spent", "fresh"]);
});

test("with hashes so narrow that nonces share them, two connections answer as the table does through records, rollbacks and prunes", () => {
  narrowNonceHashForTests(4); // 16 hash values for 60 (scope, nonce) pairs
  try {
    const file = newFile();
    const connections = [connect(file), connect(file)];
    const pairs = Array.from({ length: 60 }, (_, i) => [`key:z6Mk${i % 3}`, `nonce-${i % 20}`] as const);
    const truth = (scope: string, nonce: string) => connections[0]!.$client.query("SELECT 1 FROM inbound_nonces WHERE scope = ? AND nonce = ?").get(scope, nonce) !== null;
    let seed = 7;
    const random = (n: number) => (seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) % n;
    for (let step = 0; step < 400; step++) {
      const db = connections[random(2)]!;
      const [scope, nonce] = pairs[random(pairs.length)]!;
      const op = random(10);
      if (op < 6) {
        const expected = !truth(scope, nonce);
        expect({ step, recorded: record(db, scope, nonce, step) }).toEqual({ step, recorded: expected });
      } else if (op < 9) {
        expect(() => transaction(db, () => {
          insertNonce(db, scope, nonce, step);
          throw new Error("rolled back");
        })).toThrow("rolled back");
      } else {
        pruneNonceRows(db, step - 100);
      }
      const expected = pairs.map(([s, n]) => truth(s, n));
      for (const c of connections) expect({ step, seen: pairs.map(([s, n]) => nonceSeen(c, s, n)) }).toEqual({ step, seen: expected });
    }
  } finally {
    narrowNonceHashForTests(53);
  }
});

test("a prune in steps (the maintenance job's chunks) deletes the oldest first and forgets exactly what it deleted", () => {
  const a = connect(newFile());
  for (let i = 0; i < 30; i++) expect(record(a, "s", `n-${i}`, 1_000 + i)).toBe(true);
  expect(pruneNonceRows(a, 1_020, 7)).toBe(7); // n-0..n-6
  expect(pruneNonceRows(a, 1_020, 7)).toBe(7); // n-7..n-13
  expect(nonceIndexSize(a)).toBe(16);
  expect(rows(a)).toBe(16);
  for (let i = 14; i < 30; i++) expect(record(a, "s", `n-${i}`, 2_000)).toBe(false); // still spent
  expect(record(a, "s", "n-13", 2_000)).toBe(true); // forgotten with its row
  expect(pruneNonceRows(a, 1_020, 100)).toBe(6); // n-14..n-19: the rest are inside the window
  expect(pruneNonceRows(a, 1_020, 100)).toBe(0);
  expect(record(a, "s", "n-20", 2_000)).toBe(false);
});

test("a preload in steps reads the table ahead of the first check; what others add meanwhile, and a preload stopped halfway, still count", () => {
  const file = newFile();
  const writer = connect(file);
  for (let i = 0; i < 25; i++) record(writer, "key:z6MkA", `n${i}`);
  const b = connect(file);
  expect(nonceIndexSize(b)).toBe(0);
  expect(preloadNonceIndex(b, 10)).toBe(false);
  expect(nonceIndexSize(b)).toBe(10);
  expect(preloadNonceIndex(b, 10)).toBe(false);
  expect(nonceIndexSize(b)).toBe(20);
  // Another connection records more between two steps; the steps read on from where they were.
  record(writer, "key:z6MkA", "late-1");
  expect(preloadNonceIndex(b, 10)).toBe(true);
  expect(nonceIndexSize(b)).toBe(26);
  expect(nonceSeen(b, "key:z6MkA", "n0")).toBe(true);
  expect(nonceSeen(b, "key:z6MkA", "late-1")).toBe(true);
  expect(record(b, "key:z6MkA", "n24")).toBe(false); // a replay
  // Once used, the index is current by its own check: a preload has nothing left to do.
  expect(preloadNonceIndex(b, 10)).toBe(true);

  // Stopped after one step: the first use reads the rest.
  const c = connect(file);
  expect(preloadNonceIndex(c, 5)).toBe(false);
  record(writer, "key:z6MkA", "late-2");
  expect(nonceSeen(c, "key:z6MkA", "late-2")).toBe(true);
  expect(nonceSeen(c, "key:z6MkA", "n20")).toBe(true);
  expect(nonceIndexSize(c)).toBe(27);
  expect(record(c, "key:z6MkA", "new")).toBe(true);
});
