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

test("ULIDs are exactly the ULID spec's encoding: 48-bit time then 80 random bits, 5 bits a char", () => {
  // Reference encoder: the id as one 128-bit number (ulid/spec), written out in base 32.
  const reference = (ms: number, bytes: Uint8Array) => {
    let n = BigInt(ms);
    for (const b of bytes) n = (n << 8n) | BigInt(b);
    let out = "";
    for (let i = 0; i < 26; i++, n >>= 5n) out = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"[Number(n & 31n)] + out;
    return out;
  };
  const start = Date.parse("2026-11-25T00:00:00.000Z");
  const clock = testClock(start);
  const draws: Uint8Array[] = [];
  const ids = createUlidIds(clock, (n) => {
    const b = crypto.getRandomValues(new Uint8Array(n));
    if (draws.length % 3 === 0) b.fill(255, 3); // long carries in the same-millisecond increment
    draws.push(b);
    return b;
  });
  for (let i = 0; i < 2000; i++) {
    const id = ids.next();
    const random = draws.at(-1)!;
    expect(id).toBe(reference(clock.now(), random));
    // the next id of this millisecond is the same random number plus one
    const next = ids.next();
    let n = 0n;
    for (const b of random) n = (n << 8n) | BigInt(b);
    const plusOne = new Uint8Array(10);
    for (let k = 9, m = (n + 1n) & ((1n << 80n) - 1n); k >= 0; k--, m >>= 8n) plusOne[k] = Number(m & 255n);
    expect(next).toBe(reference(clock.now(), plusOne));
    clock.advance(1 + (i % 7) * 997);
  }
});
