import { transaction, type NotPromise, type Tx } from "../../../db/client.ts";
import type { With } from "../../context.ts";

/**
 * Runs one change of the agent's keys (rotation, revocation) under one lock that spans the key
 * file and the database: SQLite's write lock (BEGIN IMMEDIATE), which every process that writes
 * kith.db takes, the running node and the CLI alike, and which the kernel drops when a process dies.
 * Inside it the key file is re-read (another process may have added a key since this one loaded
 * it), the state is read, the new private key is written to the file first and the rows last, at
 * the commit: a crash in between leaves an unused key in the file, which start-up accepts
 * (verifyKeyFile), never an active key without its private half. `now` is read under the lock, so
 * key windows follow the order in which changes commit. docs/decisions/key-revocation.md.
 */
export function changeKeys<T>(ctx: With<"vault">, fn: (tx: Tx, now: number) => NotPromise<T>): T {
  return transaction(ctx.db, (tx) => {
    ctx.vault.reload();
    return fn(tx, ctx.clock.now());
  });
}
