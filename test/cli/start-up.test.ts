import { expect, test } from "bun:test";
import { endStartUp } from "../../src/cli/start-up.ts";

test("once listening, kith serve puts the JIT policy back to normal before shrinking the heap", () => {
  const calls: string[] = [];
  endStartUp({ unsafe: { setJITPolicy: (scale) => calls.push(`jit ${scale}`) }, shrink: () => calls.push("shrink") });
  expect(calls).toEqual(["jit 1", "shrink"]);
});

test("a Bun without either call starts all the same", () => {
  expect(() => endStartUp({})).not.toThrow();
  expect(() => endStartUp({ unsafe: {} })).not.toThrow();
});

test("the real runtime has both (the binary is built with a scaled JIT policy that only this resets)", () => {
  expect(typeof Bun.unsafe.setJITPolicy).toBe("function");
  expect(typeof Bun.shrink).toBe("function");
});
