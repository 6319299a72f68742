import { afterAll, expect, test } from "bun:test";
import * as fs from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createKeyFile, KeyFileError, type KeyFileFs } from "../../src/adapters/key-file.ts";
import { personaKey } from "../helpers/personas.ts";

/**
 * Two creators racing for one agent-key.json. A competitor (another `kith init`) creates the file
 * with O_EXCL right after the n-th file-system call of `createKeyFile`, for every n: exactly one
 * of them may win, and the file must be the winner's. (A check-then-rename loses: the competitor
 * creates the file between the check and the rename, and the rename silently replaces it.)
 */
const real = { ...fs };
let calls = 0;
let injectAt = -1;
let competitor: () => void = () => {};
// createKeyFile takes its file-system calls as a parameter: each one is wrapped to count it.
const wrapped: Record<string, unknown> = { ...real };
for (const [name, fn] of Object.entries(real)) {
  if (typeof fn !== "function" || !name.endsWith("Sync")) continue;
  wrapped[name] = (...args: unknown[]) => {
    const result = (fn as (...a: unknown[]) => unknown)(...args);
    if (++calls === injectAt) competitor();
    return result;
  };
}
const counted = wrapped as unknown as KeyFileFs;

const work = real.mkdtempSync(join(tmpdir(), "kith-keyrace-"));
afterAll(() => real.rmSync(work, { recursive: true, force: true }));

test("a competitor creating the key file at any point of createKeyFile: exactly one wins", () => {
  const mine = [personaKey("alice", "signing")];
  let points = 0;
  for (let n = 1; n < 40; n++) {
    const file = join(work, `k${n}.json`);
    let competitorWon = false;
    competitor = () => {
      try {
        real.writeFileSync(file, "competitor", { flag: "wx", mode: 0o600 });
        competitorWon = true;
      } catch {
        // the file was there already: the competitor lost
      }
    };
    calls = 0;
    injectAt = n;
    let iWon = false;
    try {
      createKeyFile(file, mine, null, counted);
      iWon = true;
    } catch (e) {
      if (!(e instanceof KeyFileError) || e.code !== "exists") throw e;
    }
    injectAt = -1;
    if (calls < n) break; // createKeyFile made fewer calls: every point was tried
    points++;
    const content = real.readFileSync(file, "utf8");
    expect({ n, winners: Number(iWon) + Number(competitorWon) }).toEqual({ n, winners: 1 });
    expect({ n, content: iWon ? content.includes(mine[0]!.publicKeyMultibase) : content === "competitor" }).toEqual({ n, content: true });
  }
  expect(points).toBeGreaterThan(3);
});
