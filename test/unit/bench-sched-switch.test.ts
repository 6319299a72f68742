import { expect, test } from "bun:test";
import { describe, parseSwitches, waits } from "../../scripts/bench/sched-switch.ts";

// perf script lines (comm pid/tid [cpu] seconds: event: fields) for a node whose event loop is 100.
const sw = (t: number, prev: [string, number, number, string], next: [string, number]) =>
  `${prev[0].padStart(16)} ${prev[1]}/${prev[2]} [000] ${t.toFixed(6)}: sched:sched_switch: prev_comm=${prev[0]} prev_pid=${prev[2]} prev_prio=120 prev_state=${prev[3]} ==> next_comm=${next[0]} next_pid=${next[1]} next_prio=120`;
const wake = (t: number, waker: [string, number, number], woken: number) =>
  `${waker[0].padStart(16)} ${waker[1]}/${waker[2]} [000] ${t.toFixed(6)}: sched:sched_wakeup: comm=bun pid=${woken} prio=120 target_cpu=000`;

const text = [
  sw(10.0, ["swapper", 0, 0, "R"], ["bun", 100]),
  // the event loop is preempted by a compiler thread for 3 ms, then by another process for 1 ms
  sw(10.002, ["bun", 100, 100, "R"], ["JITWorker", 103]),
  sw(10.005, ["JITWorker", 100, 103, "S"], ["other", 555]),
  sw(10.006, ["other", 555, 555, "R+"], ["bun", 100]),
  // it sleeps; the fsync thread ("Bun Pool 1") wakes it while a compiler thread runs: 2 ms more
  sw(10.008, ["bun", 100, 100, "S"], ["JITWorker", 103]),
  wake(10.009, ["Bun Pool 1", 100, 104], 100),
  sw(10.011, ["JITWorker", 100, 103, "S"], ["bun", 100]),
  // a compiler thread wakes it after 4 ms asleep (a lock it waited on)
  sw(10.012, ["bun", 100, 100, "S"], ["JITWorker", 103]),
  wake(10.016, ["JITWorker", 100, 103], 100),
  sw(10.016, ["JITWorker", 100, 103, "S"], ["bun", 100]),
  sw(10.02, ["bun", 100, 100, "S"], ["swapper", 0]),
].join("\n");

test("the event loop's waits for its core, split by what ran meanwhile (the node's threads by kind, other processes as one)", () => {
  const parsed = parseSwitches(text);
  const w = waits(parsed, 100).map((x) => ({ how: x.how, ms: Math.round((x.end - x.start) * 1000) / 1000, by: Object.fromEntries([...x.by].map(([k, v]) => [k, Math.round(v * 1000) / 1000])) }));
  expect(w).toEqual([
    { how: "preempted", ms: 4, by: { JITWorker: 3, "other processes": 1 } },
    { how: "woken", ms: 2, by: { JITWorker: 2 } },
    { how: "woken", ms: 0, by: {} },
  ]);
});

test("the bench's line: totals, the JIT's CPU by second, wake-ups by a compiler thread and how long the loop had slept", () => {
  const line = describe(parseSwitches(text), 100, 10_000, 10_100);
  expect(line).toContain("ready but off its core 3 times, 6 ms in all (preempted 4, woken and waiting 2; >= 1 ms: 2, >= 5 ms: 0, max 4.0 ms)");
  expect(line).toContain("its core meanwhile, ms: JITWorker 5, other processes 1");
  expect(line).toContain("JITWorker CPU ms by second: 10");
  expect(line).toContain("event loop woken by a JITWorker: 1 times, after 4 ms asleep in all (max 4.0)");
});
