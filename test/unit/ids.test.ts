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

test("a ULID is the time's 48 bits and the 80 random bits in Crockford base32, exactly (against a BigInt encoding)", () => {
  const crockford = "0123456789ABCDEFGHJKMNPQRSTVWXYZ";
  const reference = (ms: number, bytes: Uint8Array) => {
    let v = (BigInt(ms) << 80n) | bytes.reduce((acc, b) => (acc << 8n) | BigInt(b), 0n);
    let out = "";
    for (let i = 0; i < 26; i++, v >>= 5n) out = crockford[Number(v & 31n)] + out;
    return out;
  };
  const times = [0, 1, 31, 32, 2 ** 30 - 1, 2 ** 30, 2 ** 35 + 12345, Date.parse("2026-01-01T00:00:00.000Z"), 2 ** 48 - 1];
  const patterns = [new Uint8Array(10), new Uint8Array(10).fill(255), Uint8Array.from({ length: 10 }, (_, i) => (i * 37 + 11) & 255)];
  for (let i = 0; i < 200; i++) {
    times.push(Math.floor(Math.random() * 2 ** 48));
    patterns.push(crypto.getRandomValues(new Uint8Array(10)));
  }
  times.forEach((ms, i) => {
    const bytes = patterns[i % patterns.length]!;
    const id = createUlidIds({ now: () => ms }, () => bytes.slice()).next();
    expect({ ms, id }).toEqual({ ms, id: reference(ms, bytes) });
  });
});
