import type { Clock } from "../../src/domain/context.ts";

export interface TestClock extends Clock {
  set(ms: number): void;
  advance(ms: number): void;
}

export const T0 = Date.parse("2026-06-01T12:00:00.000Z");

export function testClock(start = T0): TestClock {
  let now = start;
  return {
    now: () => now,
    set: (ms) => void (now = ms),
    advance: (ms) => void (now += ms),
  };
}
