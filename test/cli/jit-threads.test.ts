import { expect, test } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import { getPriority } from "node:os";
import { JIT_NICE, lowerJitThreads, watchJitThreads, type ThreadSystem } from "../../src/cli/jit-threads.ts";

/** A process's threads and their nice values, by hand; counts the names read. */
function fakeSystem(threads: Array<{ tid: number; name: string; nice: number }>, own = 0) {
  const set: Array<[number, number]> = [];
  let reads = 0;
  const find = (tid: number) => {
    const t = threads.find((x) => x.tid === tid);
    if (!t) throw new Error("ESRCH");
    return t;
  };
  const system: ThreadSystem = {
    tids: () => threads.map((t) => t.tid),
    name: (tid) => (reads++, threads.find((x) => x.tid === tid)?.name ?? null),
    ownNice: () => own,
    getNice: (tid) => find(tid).nice,
    setNice: (tid, nice) => {
      find(tid).nice = nice;
      set.push([tid, nice]);
    },
  };
  return { system, set, threads, reads: () => reads };
}

test("only JSC's compiler threads go JIT_NICE below the event loop; the event loop, GC helpers and Workers keep theirs", () => {
  const f = fakeSystem([
    { tid: 1, name: "bun", nice: 0 },
    { tid: 2, name: "JITWorker", nice: 0 },
    { tid: 3, name: "HeapHelper", nice: 0 },
    { tid: 4, name: "Worker", nice: 0 },
    { tid: 5, name: "JITWorker", nice: 0 },
    { tid: 6, name: "Bun Pool 0", nice: 0 },
  ]);
  expect(lowerJitThreads(f.system)).toBe(2);
  expect(f.set).toEqual([
    [2, JIT_NICE],
    [5, JIT_NICE],
  ]);
  expect(f.threads.filter((t) => t.name !== "JITWorker").every((t) => t.nice === 0)).toBe(true);
  // a second look changes nothing
  expect(lowerJitThreads(f.system)).toBe(0);
  expect(f.set).toHaveLength(2);
});

test("relative to the event loop's own nice value (a node under `nice`), capped at 19, never raised", () => {
  const under5 = fakeSystem([{ tid: 2, name: "JITWorker", nice: 5 }], 5);
  lowerJitThreads(under5.system);
  expect(under5.set).toEqual([[2, 5 + JIT_NICE]]);
  const under12 = fakeSystem([{ tid: 2, name: "JITWorker", nice: 12 }], 12);
  lowerJitThreads(under12.system);
  expect(under12.set).toEqual([[2, 19]]);
  const already = fakeSystem([{ tid: 2, name: "JITWorker", nice: 19 }], 0);
  lowerJitThreads(already.system);
  expect(already.set).toEqual([]);
});

test("a thread that ends between the listing and the change, or a refusal, is skipped", () => {
  const f = fakeSystem([{ tid: 2, name: "JITWorker", nice: 0 }]);
  const listed = f.system.tids;
  const named = f.system.name;
  f.system.tids = () => [...listed(), 99, 98];
  f.system.name = (tid) => (tid === 99 ? "JITWorker" : named(tid)); // 99 gone before getNice, 98 before its name is read
  expect(lowerJitThreads(f.system)).toBe(1);
  f.system.setNice = () => {
    throw new Error("EACCES");
  };
  f.threads[0]!.nice = 0;
  expect(lowerJitThreads(f.system)).toBe(0);
});

test("a look reads only the names it does not know: a thread is settled once lowered or seen twice under another name", () => {
  const f = fakeSystem([
    { tid: 1, name: "bun", nice: 0 },
    { tid: 2, name: "JITWorker", nice: 0 },
    { tid: 3, name: "bun", nice: 0 }, // just created: it has not named itself yet
  ]);
  const settled = new Map<number, number>();
  expect(lowerJitThreads(f.system, settled)).toBe(1);
  expect(f.reads()).toBe(3);
  f.threads[2]!.name = "JITWorker"; // named itself since
  expect(lowerJitThreads(f.system, settled)).toBe(1); // read again: seen only once under "bun"
  expect(f.set).toEqual([
    [2, JIT_NICE],
    [3, JIT_NICE],
  ]);
  expect(f.reads()).toBe(5); // 1 and 3; 2 was settled
  lowerJitThreads(f.system, settled);
  expect(f.reads()).toBe(5); // nothing new: no name read at all
  // a thread that ends is forgotten; a new one (even a JITWorker at the node's priority) is read
  f.threads.splice(1, 1);
  f.threads.push({ tid: 7, name: "JITWorker", nice: 0 });
  expect(lowerJitThreads(f.system, settled)).toBe(1);
  expect([...settled.keys()].sort()).toEqual([1, 3, 7]);
});

test("the watch looks at every tick, not during the start (JSC ends idle compiler threads and starts new ones), until stopped", () => {
  const f = fakeSystem([{ tid: 2, name: "JITWorker", nice: 0 }]);
  let tick: (() => void) | null = null;
  let stopped = 0;
  const stop = watchJitThreads({ system: f.system, every: (fn) => ((tick = fn), () => void stopped++) });
  expect(f.reads()).toBe(0);
  tick!();
  expect(f.set).toEqual([[2, JIT_NICE]]);
  f.threads.splice(0, 1, { tid: 7, name: "JITWorker", nice: 0 }); // the old one ended, a new one started
  tick!();
  expect(f.set).toEqual([
    [2, JIT_NICE],
    [7, JIT_NICE],
  ]);
  f.system.tids = () => {
    throw new Error("no /proc");
  };
  expect(() => tick!()).not.toThrow();
  stop();
  expect(stopped).toBe(1);
});

test.skipIf(process.platform !== "linux")("on Linux, this process's own JIT compiler threads are lowered", () => {
  // make the JIT compile something, so that its threads exist
  const hot = new Function("n", "let s = 0; for (let i = 0; i < n; i++) s += (i * 31) % 7; return s;") as (n: number) => number;
  let sum = 0;
  for (let i = 0; i < 3000; i++) sum += hot(2000);
  expect(sum).toBeGreaterThan(0);
  const nice = (tid: string) => Number(readFileSync(`/proc/self/task/${tid}/stat`, "utf8").split(") ")[1]!.split(" ")[16]);
  // the threads listed before the look (one the JIT starts after it would be at the node's priority until the next look)
  const jit = readdirSync("/proc/self/task").filter((tid) => {
    try {
      return readFileSync(`/proc/self/task/${tid}/comm`, "utf8").trim() === "JITWorker";
    } catch {
      return false;
    }
  });
  expect(jit.length).toBeGreaterThan(0);
  lowerJitThreads();
  for (const tid of jit) expect(nice(tid)).toBe(Math.min(19, getPriority() + JIT_NICE));
  expect(nice(String(process.pid))).toBe(getPriority());
});
