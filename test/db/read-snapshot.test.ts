import { afterEach, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { closeDatabase, openDatabase, transaction, type Db } from "../../src/db/client.ts";
import { readSnapshot } from "../../src/db/read-snapshot.ts";

// The inbound path's reads share one read transaction (src/db/read-snapshot.ts): it must never
// leave the connection in a transaction, whatever `fn` does, nor end a transaction it did not open.
let dir: string;
let a: Db;
let b: Db;
afterEach(() => {
  closeDatabase(a);
  closeDatabase(b);
  rmSync(dir, { recursive: true, force: true });
});

function open() {
  dir = mkdtempSync(join(tmpdir(), "kith-snapshot-"));
  a = openDatabase(join(dir, "s.db"));
  b = openDatabase(join(dir, "s.db"));
  a.$client.exec("CREATE TABLE t (k TEXT PRIMARY KEY, v INTEGER NOT NULL)");
  a.$client.exec("INSERT INTO t VALUES ('x', 1)");
}
const read = (db: Db) => db.$client.query<{ v: number }, []>("SELECT v FROM t WHERE k = 'x'").get()!.v;

test("reads inside see one snapshot, and the next statement sees what another connection committed meanwhile", () => {
  open();
  const seen = readSnapshot(a, () => {
    const first = read(a);
    b.$client.exec("UPDATE t SET v = 2"); // another connection commits between two reads
    return [first, read(a), a.$client.inTransaction];
  });
  expect(seen).toEqual([1, 1, true]);
  expect(a.$client.inTransaction).toBe(false);
  expect(read(a)).toBe(2);
});

test("a throw ends the read transaction and reaches the caller; a write transaction can start right after", () => {
  open();
  expect(() => readSnapshot(a, () => {
    read(a);
    throw new Error("refused");
  })).toThrow("refused");
  expect(a.$client.inTransaction).toBe(false);
  transaction(a, () => a.$client.exec("UPDATE t SET v = 3"));
  expect(read(b)).toBe(3);
});

test("inside a transaction already, it runs in that transaction and leaves it open", () => {
  open();
  transaction(a, () => {
    a.$client.exec("UPDATE t SET v = 4");
    expect(readSnapshot(a, () => read(a))).toBe(4);
    expect(a.$client.inTransaction).toBe(true);
  });
  expect(read(b)).toBe(4);
});
