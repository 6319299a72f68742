import type { Database, Statement } from "bun:sqlite";
import type { Db, NotPromise } from "./client.ts";

const statements = new WeakMap<Database, { begin: Statement; commit: Statement; rollback: Statement }>();

/**
 * Runs a request's synchronous reads in one read transaction. Outside a transaction every
 * statement opens and closes its own WAL read transaction (the -shm read mark), ~2 µs each:
 * five point reads cost 12.3 µs one by one and 4.6 µs together (issue 18; inbound-performance.md
 * "Glue"). The reads see one snapshot instead of several taken microseconds apart; inside a
 * transaction already, `fn` just runs in it. `fn` must only read: a `transaction()` inside it
 * would be nested, and a write would commit here.
 */
export function readSnapshot<T>(db: Db, fn: () => NotPromise<T>): T {
  const client = db.$client;
  if (client.inTransaction) return fn();
  let sql = statements.get(client);
  if (!sql) statements.set(client, (sql = { begin: client.prepare("BEGIN"), commit: client.prepare("COMMIT"), rollback: client.prepare("ROLLBACK") }));
  sql.begin.run();
  let done = false;
  try {
    const result = fn();
    done = true;
    return result;
  } finally {
    if (client.inTransaction) (done ? sql.commit : sql.rollback).run();
  }
}
