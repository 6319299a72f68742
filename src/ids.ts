import type { Clock, Ids } from "./domain/context.ts";

const CROCKFORD = "0123456789ABCDEFGHJKMNPQRSTVWXYZ";

/**
 * Monotonic ULIDs (26 chars, Crockford base32): ids made in the same millisecond still sort in
 * creation order, which keeps cursors and "latest first" lists stable.
 */
export function createUlidIds(clock: Clock, random: (n: number) => Uint8Array = randomBytes): Ids {
  let lastTime = -1;
  let lastRandom: Uint8Array = new Uint8Array(10);
  return {
    next() {
      const now = Math.max(clock.now(), lastTime);
      if (now === lastTime) {
        lastRandom = increment(lastRandom);
      } else {
        lastTime = now;
        lastRandom = random(10);
      }
      return encodeTime(now) + encodeRandom(lastRandom);
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
  // 80 bits -> 16 base32 chars, most significant first: two 40-bit halves, 8 chars each.
  let out = "";
  for (const offset of [0, 5]) {
    let v = 0;
    for (let i = 0; i < 5; i++) v = v * 256 + bytes[offset + i]!;
    let chunk = "";
    for (let i = 0; i < 8; i++) {
      chunk = CROCKFORD[v % 32] + chunk;
      v = Math.floor(v / 32);
    }
    out += chunk;
  }
  return out;
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
