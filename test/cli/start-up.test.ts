import { expect, test } from "bun:test";
import { BUSY_SHARE, endStartUp, normalJitNow, normalJitOnUse, REQUESTS_BEFORE_JIT } from "../../src/cli/start-up.ts";

/** A watch with a hand-driven clock of CPU and a hand-driven timer. */
function watched(options: { requests?: number } = {}) {
  const calls: number[] = [];
  let cpu = 0;
  let tick: (() => void) | null = null;
  let cancelled = 0;
  const watch = normalJitOnUse(
    { ...options, checkEveryMs: 1000, cpuMs: () => cpu, every: (fn) => ((tick = fn), () => void cancelled++) },
    { unsafe: { setJITPolicy: (scale: number) => calls.push(scale) } },
  );
  return {
    watch,
    calls,
    spend: (ms: number) => void (cpu += ms),
    tick: () => tick!(),
    cancelled: () => cancelled,
  };
}

test("kith serve gets the normal JIT policy with its 64th request, once", () => {
  const w = watched();
  for (let i = 1; i < REQUESTS_BEFORE_JIT; i++) w.watch.countRequest();
  expect(w.calls).toEqual([]);
  w.watch.countRequest();
  expect(w.calls).toEqual([1]);
  expect(w.cancelled()).toBe(1); // the CPU watch ends with it
  for (let i = 0; i < 1000; i++) w.watch.countRequest();
  w.spend(10_000);
  w.tick();
  expect(w.calls).toEqual([1]);
});

test("work that is not HTTP (a mailbox drain, the outbox, jobs) switches it too: a busy second of CPU", () => {
  const w = watched();
  w.spend(400); // the end of the start itself: the first window is only a baseline
  w.tick();
  expect(w.calls).toEqual([]);
  w.spend(BUSY_SHARE * 1000 * 0.8); // an idle node's polling
  w.tick();
  w.spend(BUSY_SHARE * 1000 * 0.8);
  w.tick();
  expect(w.calls).toEqual([]);
  w.spend(BUSY_SHARE * 1000 * 3); // draining a mailbox, no request at all
  w.tick();
  expect(w.calls).toEqual([1]);
  w.spend(1000);
  w.tick();
  w.watch.countRequest();
  expect(w.calls).toEqual([1]);
});

test("stop ends the CPU watch", () => {
  const w = watched();
  w.watch.stop();
  expect(w.cancelled()).toBe(1);
});

test("with the real timer and CPU clock, a busy stretch switches it", async () => {
  const calls: number[] = [];
  const watch = normalJitOnUse({ checkEveryMs: 5 }, { unsafe: { setJITPolicy: (s) => calls.push(s) } });
  await Bun.sleep(12); // the baseline window
  const until = performance.now() + 40;
  while (performance.now() < until) Math.sqrt(Math.random()); // busy: over 5% of a core
  await Bun.sleep(20);
  expect(calls).toEqual([1]);
  watch.stop();
});

test("the other verbs get it at once; listening shrinks the heap", () => {
  const calls: string[] = [];
  const runtime = { unsafe: { setJITPolicy: (scale: number) => calls.push(`jit ${scale}`) }, shrink: () => calls.push("shrink") };
  normalJitNow(runtime);
  endStartUp(runtime);
  expect(calls).toEqual(["jit 1", "shrink"]);
});

test("a Bun without either call starts all the same", () => {
  expect(() => endStartUp({})).not.toThrow();
  expect(() => normalJitNow({ unsafe: {} })).not.toThrow();
  const watch = normalJitOnUse({ requests: 1 }, {});
  expect(() => watch.countRequest()).not.toThrow();
  watch.stop();
});

test("the real runtime has both", () => {
  expect(typeof Bun.unsafe.setJITPolicy).toBe("function");
  expect(typeof Bun.shrink).toBe("function");
});
