import { expect, test } from "bun:test";
import { createSequentialIds, createUlidIds } from "../../src/ids.ts";
import { testClock } from "../helpers/clock.ts";

test("ULIDs are 26 Crockford chars, time-prefixed, and strictly increasing within one millisecond", () => {
  const clock = testClock(Date.parse("2026-01-01T00:00:00.000Z"));
  const ids = createUlidIds(clock);
  const batch = Array.from({ length: 1000 }, () => ids.next());
  for (const id of batch) expect(id).toMatch(/^[0-9A-HJKMNP-TV-Z]{26}$/);
  expect([...batch].sort()).toEqual(batch);
  expect(new Set(batch).size).toBe(batch.length);
  clock.advance(1);
  const later = ids.next();
  expect(later > batch.at(-1)!).toBe(true);
  expect(later.slice(0, 10)).not.toBe(batch[0]!.slice(0, 10));
});

test("ULIDs never go backwards when the clock does", () => {
  const clock = testClock(Date.parse("2026-01-01T00:00:00.000Z"));
  const ids = createUlidIds(clock);
  const a = ids.next();
  clock.advance(-5000);
  expect(ids.next() > a).toBe(true);
});

test("sequential test ids are fixed-width and ordered", () => {
  const ids = createSequentialIds("T");
  expect(ids.next()).toBe("T0000000000000000000000001");
  expect(ids.next()).toBe("T0000000000000000000000002");
});
