import { expect, test } from "bun:test";
import { endStartUp, normalJitAfter, normalJitNow, REQUESTS_BEFORE_JIT } from "../../src/cli/start-up.ts";

test("kith serve gets the normal JIT policy with its 64th request, once", () => {
  const calls: number[] = [];
  const count = normalJitAfter(REQUESTS_BEFORE_JIT, { unsafe: { setJITPolicy: (scale) => calls.push(scale) } });
  for (let i = 1; i < REQUESTS_BEFORE_JIT; i++) count();
  expect(calls).toEqual([]);
  count();
  expect(calls).toEqual([1]);
  for (let i = 0; i < 1000; i++) count();
  expect(calls).toEqual([1]);
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
  expect(() => normalJitAfter(1, {})()).not.toThrow();
});

test("the real runtime has both", () => {
  expect(typeof Bun.unsafe.setJITPolicy).toBe("function");
  expect(typeof Bun.shrink).toBe("function");
});
