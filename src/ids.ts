import type { Clock, Ids } from "./domain/context.ts";

const CROCKFORD = "0123456789ABCDEFGHJKMNPQRSTVWXYZ";

/**
 * Monotonic ULIDs (26 chars, Crockford base32): ids made in the same millisecond still sort in
 * creation order, which keeps cursors and "latest first" lists stable.
 */
export function createUlidIds(clock: Clock, random: (n: number) => Uint8Array = randomBytes): Ids {
  let lastTime = -1;
  let lastPrefix = "";
  let lastRandom: Uint8Array = new Uint8Array(10);
  return {
    next() {
      const now = Math.max(clock.now(), lastTime);
      if (now === lastTime) {
        lastRandom = increment(lastRandom);
      } else {
        lastTime = now;
        lastPrefix = encodeTime(now); // the same for every id of this millisecond
        lastRandom = random(10);
      }
      return lastPrefix + encodeRandom(lastRandom);
    },
  };
}

/** Deterministic ids for tests: `<prefix>000001`, `<prefix>000002`, ... */
export function createSequentialIds(prefix = "ID"): Ids {
  let n = 0;
  return { next: () => prefix + String(++n).padStart(26 - prefix.length, "0") };
}

function encodeTime(ms: number): string {
  let out = "";
  let t = ms;
  for (let i = 0; i < 10; i++) {
    out = CROCKFORD[t % 32] + out;
    t = Math.floor(t / 32);
  }
  return out;
}

function encodeRandom(bytes: Uint8Array): string {
  // 80 bits -> 16 base32 chars, most significant first: 5 bits each, two 5-byte groups of 8 chars.
  // Bit operations on the bytes (an id is made for every stored row of an inbound intent, issue 18).
  return group(bytes, 0) + group(bytes, 5);
}

function group(b: Uint8Array, o: number): string {
  const b0 = b[o]!, b1 = b[o + 1]!, b2 = b[o + 2]!, b3 = b[o + 3]!, b4 = b[o + 4]!;
  return (
    CROCKFORD[b0 >> 3]! + CROCKFORD[((b0 & 7) << 2) | (b1 >> 6)]! + CROCKFORD[(b1 >> 1) & 31]! + CROCKFORD[((b1 & 1) << 4) | (b2 >> 4)]! +
    CROCKFORD[((b2 & 15) << 1) | (b3 >> 7)]! + CROCKFORD[(b3 >> 2) & 31]! + CROCKFORD[((b3 & 3) << 3) | (b4 >> 5)]! + CROCKFORD[b4 & 31]!
  );
}

function increment(bytes: Uint8Array): Uint8Array {
  const next = bytes.slice();
  for (let i = next.length - 1; i >= 0; i--) {
    if (next[i]! < 255) {
      next[i]! += 1;
      return next;
    }
    next[i] = 0;
  }
  return next; // 2^80 ids in one millisecond: wrap rather than throw.
}

function randomBytes(n: number): Uint8Array {
  return crypto.getRandomValues(new Uint8Array(n));
}
