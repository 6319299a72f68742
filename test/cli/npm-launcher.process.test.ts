import { Database } from "bun:sqlite";
import { afterAll, expect, setDefaultTimeout, test } from "bun:test";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { cleanEnv, ROOT } from "../helpers/process.ts";

// Spawns npm, which spawns kith: a longer per-test timeout than the suite's 5 s.
setDefaultTimeout(60_000);

const work = mkdtempSync(join(tmpdir(), "kith-npm-"));
const orphans: number[] = [];
afterAll(() => {
  for (const pid of orphans) if (alive(pid)) process.kill(pid, "SIGKILL");
  rmSync(work, { recursive: true, force: true });
});

const alive = (pid: number) => existsSync(`/proc/${pid}`) && !/^State:\s+Z/m.test(readFileSync(`/proc/${pid}/status`, "utf8"));

async function until<T>(what: string, check: () => T | undefined | false): Promise<T> {
  for (let i = 0; i < 1500; i++) {
    const v = check();
    if (v) return v;
    await Bun.sleep(20);
  }
  throw new Error(`timed out waiting for ${what}`);
}

/** A service manager or a container stops the process it started (npm) with SIGTERM, not the whole group. */
test.each([
  ["npm start", ["npm", "start", "--"]],
  ["npm run kith -- serve", ["npm", "run", "kith", "--", "serve"]],
])("%s: SIGTERM to npm stops the node cleanly (exit 0, lock released, no kith left running)", async (name, launcher) => {
  const dir = join(work, name.replace(/\W+/g, "-"));
  const npm = Bun.spawn([...launcher, "--data-dir", dir, "--port", "0"], { cwd: ROOT, env: cleanEnv(), stdin: "ignore", stdout: "pipe", stderr: "pipe" });
  let err = "";
  let out = "";
  const drained = Promise.all([
    (async () => {
      for await (const chunk of npm.stderr) err += new TextDecoder().decode(chunk);
    })(),
    (async () => {
      for await (const chunk of npm.stdout) out += new TextDecoder().decode(chunk);
    })(),
  ]);
  await until("the node to listen", () => /listening on/.test(err) || (npm.exitCode !== null && (() => { throw new Error(`npm exited ${npm.exitCode}: ${err}`); })()));
  // The processes under npm (a shell, unless the script execs): the node is the one holding the lock.
  const children = readFileSync(`/proc/${npm.pid}/task/${npm.pid}/children`, "utf8").trim().split(/\s+/).map(Number);
  const descendants = children.flatMap((pid) => [pid, ...(existsSync(`/proc/${pid}`) ? readFileSync(`/proc/${pid}/task/${pid}/children`, "utf8").trim().split(/\s+/).filter(Boolean).map(Number) : [])]);
  orphans.push(...descendants);
  npm.kill("SIGTERM");
  expect(await npm.exited).toBe(0);
  await drained;
  expect(out).toContain('"msg":"stopped"'); // shut down as on Ctrl-C: requests finished, SQLite closed
  await until("every process npm started to end", () => descendants.every((pid) => !alive(pid)));
  const lock = new Database(join(dir, "kith.lock"), { readwrite: true });
  try {
    lock.exec("PRAGMA busy_timeout = 0");
    expect(() => lock.exec("BEGIN EXCLUSIVE")).not.toThrow();
  } finally {
    lock.close();
  }
});
