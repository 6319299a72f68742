/**
 * In-memory fixed-window rate limiter for per-minute abuse throttles (per IP, per sender). A
 * restart resets these windows, which is acceptable for them; limits that must survive restarts
 * (email codes) use the SQLite-backed limiter in domain/rate-limit.
 */
export interface RateDecision {
  allowed: boolean;
  remaining: number;
  /** Seconds until the current window ends (for Retry-After). */
  retryAfterSeconds: number;
}

export interface RateRule {
  limit: number;
  windowMs: number;
}

export interface MemoryRateLimiter {
  consume(bucket: string, key: string, rule: RateRule, nowMs: number): RateDecision;
}

/** `maxKeys` bounds memory under a flood of distinct keys: the oldest windows are dropped first. */
export function createMemoryRateLimiter(maxKeys = 50_000): MemoryRateLimiter {
  const windows = new Map<string, { start: number; count: number }>();
  return {
    consume(bucket, key, rule, nowMs) {
      const id = `${bucket}\u0000${key}`;
      const start = Math.floor(nowMs / rule.windowMs) * rule.windowMs;
      let w = windows.get(id);
      if (!w || w.start !== start) {
        if (w) windows.delete(id); // re-insert so Map order stays oldest-first
        w = { start, count: 0 };
        windows.set(id, w);
        if (windows.size > maxKeys) windows.delete(windows.keys().next().value!);
      }
      w.count += 1;
      return decision(w.count, start, rule, nowMs);
    },
  };
}

export function decision(count: number, windowStart: number, rule: RateRule, nowMs: number): RateDecision {
  return {
    allowed: count <= rule.limit,
    remaining: Math.max(0, rule.limit - count),
    retryAfterSeconds: Math.max(1, Math.ceil((windowStart + rule.windowMs - nowMs) / 1000)),
  };
}
