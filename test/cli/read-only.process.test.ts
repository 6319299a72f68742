import { afterAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { chmodSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { cleanEnv, MAIN, ROOT, runKith, type RunResult } from "../helpers/process.ts";

// Spawns kith processes: a longer per-test timeout than the suite's 5 s.
setDefaultTimeout(60_000);

/**
 * A data directory kith can read but not write (a read-only kith.db, a read-only mount): every
 * verb that writes refuses at start with one line naming the file and the fix (it used to start a
 * node that answered /health and 500 to every write); the verbs that only read still work.
 */
const work = mkdtempSync(join(tmpdir(), "kith-read-only-"));
const root = process.getuid?.() === 0;
afterAll(() => rmSync(work, { recursive: true, force: true }));

// Root writes a 0400 file anyway: run kith as root without the capability that lets it (as a user would be).
const asUser = root ? ["setpriv", "--bounding-set=-dac_override,-dac_read_search", process.execPath, MAIN] : undefined;
const canMount = root && Bun.spawnSync(["mount", "--version"]).exitCode === 0;

async function init(d: string) {
  expect((await runKith(["init", "--data-dir", d, "--handle", "alice", "--public-url", "https://alice.example.com", "--owner-email", "alice@example.com"])).code).toBe(0);
}

/** Runs a verb that may not end on its own (a `serve` that starts): stopped after 10 s, which the test then reports. */
async function runBounded(args: string[], bin?: string[]): Promise<RunResult> {
  const proc = Bun.spawn([...(bin ?? [process.execPath, MAIN]), ...args], { cwd: ROOT, env: cleanEnv(), stdin: "ignore", stdout: "pipe", stderr: "pipe" });
  const timer = setTimeout(() => proc.kill("SIGKILL"), 10_000);
  const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  clearTimeout(timer);
  return { code, stdout, stderr };
}

function expectOneLineRefusal(r: RunResult, verb: string, says: string) {
  expect({ code: r.code, stderr: r.stderr.trim() }).toEqual({ code: 1, stderr: `kith ${verb}: ${says}` });
}

describe("a kith.db this user cannot write", () => {
  test("serve, owner code and keys rotate refuse at start naming chmod 600; keys show and backup work", async () => {
    const d = join(work, "mode");
    await init(d);
    chmodSync(join(d, "kith.db"), 0o400);
    const db = join(d, "kith.db");
    for (const args of [["serve", "--port", "0"], ["owner", "code"], ["keys", "rotate"]]) {
      const r = await runBounded([...args, "--data-dir", d], asUser);
      const line = r.stderr.trim().replace(/ by .* \(mode/, " by <user> (mode");
      expect({ code: r.code, line }).toEqual({ code: 1, line: `kith ${args[0]}: ${db} is not writable by <user> (mode 400): run chmod 600 ${db}` });
    }
    const shown = await runBounded(["keys", "show", "--data-dir", d], asUser);
    expect(shown.code).toBe(0);
    expect(shown.stdout).toContain("signing    active");
    const backup = await runBounded(["backup", "--out", join(work, "mode.tgz"), "--data-dir", d], asUser);
    expect(backup.code).toBe(0);
  });
});

describe.skipIf(!canMount)("a data directory on a read-only mount (needs root to mount)", () => {
  test("the verbs that write say read-only file system (not chmod 700); keys show and backup work", async () => {
    const source = join(work, "source");
    const mounted = join(work, "ro");
    await init(source);
    mkdirSync(mounted);
    expect(Bun.spawnSync(["mount", "--bind", source, mounted]).exitCode).toBe(0);
    try {
      expect(Bun.spawnSync(["mount", "-o", "remount,bind,ro", mounted]).exitCode).toBe(0);
      for (const args of [["serve", "--port", "0"], ["owner", "code"], ["keys", "rotate"], ["keys", "revoke", "sig-x"]]) {
        const r = await runBounded([...args, "--data-dir", mounted]);
        expectOneLineRefusal(r, args[0]!, `${mounted} is on a read-only file system: remount it read-write, or copy the node to a writable --data-dir (npm run kith -- keys show and backup work on it as it is)`);
      }
      const shown = await runBounded(["keys", "show", "--json", "--data-dir", mounted]);
      expect(shown.code).toBe(0);
      expect(JSON.parse(shown.stdout).keySetVersion).toBe(1);
      expect((await runBounded(["backup", "--out", join(work, "ro.tgz"), "--data-dir", mounted])).code).toBe(0);
    } finally {
      Bun.spawnSync(["umount", mounted]);
    }
    // As a clean stop leaves it: no -wal and no -shm, which a read-only WAL reader cannot create there.
    for (const f of ["kith.db-wal", "kith.db-shm"]) rmSync(join(source, f), { force: true });
    expect(Bun.spawnSync(["mount", "--bind", source, mounted]).exitCode).toBe(0);
    try {
      expect(Bun.spawnSync(["mount", "-o", "remount,bind,ro", mounted]).exitCode).toBe(0);
      const shown = await runBounded(["keys", "show", "--json", "--data-dir", mounted]);
      expect({ code: shown.code, stderr: shown.stderr }).toEqual({ code: 0, stderr: "" });
      expect((await runBounded(["backup", "--out", join(work, "ro-clean.tgz"), "--data-dir", mounted])).code).toBe(0);
    } finally {
      Bun.spawnSync(["umount", mounted]);
    }
  });
});
