import { expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createKeyVault } from "../../src/adapters/key-vault.ts";
import { systemClock } from "../../src/clock.ts";
import { closeDatabase, openDatabase } from "../../src/db/client.ts";
import { migrate } from "../../src/db/migrate.ts";
import { createUlidIds } from "../../src/ids.ts";
import { createJsonLogger } from "../../src/log.ts";
import { createNode } from "../../src/node/create-node.ts";

// kith serve starts the background jobs after it listens; they (and their modules) load on the next
// turn of the event loop, so what waits at start is answered first. A node stopped in between must
// not start them afterwards: they would scan a database that is already closed.
/** A node on a fresh file database, its log lines collected. */
function nodeWithLog(extra: Partial<Parameters<typeof createNode>[0]> = {}) {
  const dir = mkdtempSync(join(tmpdir(), "kith-jobs-"));
  const db = openDatabase(join(dir, "kith.db"));
  migrate(db.$client, { file: null, now: Date.now() });
  const lines: Array<Record<string, unknown>> = [];
  const log = createJsonLogger({ level: "debug", format: "json", write: (line) => lines.push(JSON.parse(line)) });
  const node = createNode({
    db,
    clock: systemClock,
    ids: createUlidIds(systemClock),
    log,
    node: { publicUrl: "http://localhost:1", wordmark: "svc", version: "test", mailboxUrl: null },
    vault: createKeyVault(join(dir, "agent-key.json"), null),
    allowPrivatePeers: true,
    network: { inline: true },
    ...extra,
  });
  return { dir, db, lines, node };
}

test("jobs started and stopped before they loaded never run, and stop() waits for the load", async () => {
  const { dir, db, lines, node } = nodeWithLog();
  node.jobs.start();
  node.jobs.start(); // once
  await node.close();
  closeDatabase(db);
  await Bun.sleep(100); // past the next turns of the event loop, when the jobs would have started
  expect(lines.filter((l) => l.level === "error" || l.level === "warn")).toEqual([]);
  rmSync(dir, { recursive: true, force: true });
});

// A node whose jobs cannot start (their module failed to load) would serve with no outbox delivery
// and no maintenance while /health says ok: the failure is logged and handed to kith serve, which stops.
test("jobs that fail to load are logged and reported to the caller of start()", async () => {
  const { dir, db, lines, node } = nodeWithLog({ loadJobs: () => Promise.reject(new Error("module not found: jobs")) });
  const failure = await new Promise<unknown>((resolve) => node.jobs.start(resolve));
  expect((failure as Error).message).toBe("module not found: jobs");
  expect(lines.some((l) => l.level === "error" && l.msg === "background jobs failed to start")).toBe(true);
  await node.close();
  closeDatabase(db);
  rmSync(dir, { recursive: true, force: true });
});
