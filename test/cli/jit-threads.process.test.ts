import { afterAll, expect, setDefaultTimeout, test } from "bun:test";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { JIT_NICE } from "../../src/cli/jit-threads.ts";
import { startKith } from "../helpers/process.ts";

setDefaultTimeout(60_000);
const work = mkdtempSync(join(tmpdir(), "kith-jit-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** Name and nice value of each thread of a process (Linux /proc). */
function threads(pid: number): Array<{ name: string; nice: number }> {
  const out: Array<{ name: string; nice: number }> = [];
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    try {
      const stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, "utf8");
      out.push({ name: stat.slice(stat.indexOf("(") + 1, stat.lastIndexOf(")")), nice: Number(stat.slice(stat.lastIndexOf(") ") + 2).split(" ")[16]) });
    } catch {
      // ended meanwhile
    }
  }
  return out;
}

test.skipIf(process.platform !== "linux")("kith serve runs JSC's compiler threads JIT_NICE below its event loop, while it works", async () => {
  const node = await startKith(["--data-dir", join(work, "d")]);
  try {
    const pid = node.proc.pid;
    const own = () => threads(pid)[0]!.nice; // /proc lists the main thread first
    let seen: Array<{ name: string; nice: number }> = [];
    // Requests make the JIT compile (its threads come and go); the watch looks every second.
    for (let round = 0; round < 40; round++) {
      await Promise.all(Array.from({ length: 50 }, () => fetch(`${node.url}/health`).then((r) => r.arrayBuffer())));
      await Bun.sleep(100);
      seen = threads(pid).filter((t) => t.name === "JITWorker");
      if (seen.length > 0 && seen.every((t) => t.nice === Math.min(19, own() + JIT_NICE))) break;
    }
    expect(seen.length).toBeGreaterThan(0);
    expect(seen.map((t) => t.nice)).toEqual(seen.map(() => Math.min(19, own() + JIT_NICE)));
    expect(threads(pid).filter((t) => t.name !== "JITWorker" && t.name !== "Worker").every((t) => t.nice === own())).toBe(true);
  } finally {
    expect(await node.stop()).toBe(0);
  }
});
