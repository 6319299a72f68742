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

/**
 * 48 bits of milliseconds as 10 chars, most significant first. Integer bit operations on two
 * halves (bits 30–49, 0–29): a division and a string prepend per char cost ~0.4 µs an id, and
 * every request and every stored row takes one.
 */
function encodeTime(ms: number): string {
  const lo = ms % 0x40000000;
  const hi = (ms - lo) / 0x40000000;
  return chars4(hi) + chars4(lo >>> 10) + CROCKFORD[(lo >>> 5) & 31]! + CROCKFORD[lo & 31]!;
}

/** 80 bits -> 16 chars, most significant first: four 20-bit quarters, 4 chars each. */
function encodeRandom(b: Uint8Array): string {
  return (
    chars4((b[0]! << 12) | (b[1]! << 4) | (b[2]! >>> 4)) +
    chars4(((b[2]! & 15) << 16) | (b[3]! << 8) | b[4]!) +
    chars4((b[5]! << 12) | (b[6]! << 4) | (b[7]! >>> 4)) +
    chars4(((b[7]! & 15) << 16) | (b[8]! << 8) | b[9]!)
  );
}

/** The low 20 bits of v as 4 chars. */
function chars4(v: number): string {
  return CROCKFORD[(v >>> 15) & 31]! + CROCKFORD[(v >>> 10) & 31]! + CROCKFORD[(v >>> 5) & 31]! + CROCKFORD[v & 31]!;
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
