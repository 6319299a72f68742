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

/** Keys one bucket may hold in one window (docs/decisions/request-limits.md: ~2 MiB at most each). */
export const DEFAULT_MAX_KEYS_PER_BUCKET = 20_000;

interface BucketWindow {
  start: number;
  windowMs: number;
  counts: Map<string, number>;
}

/**
 * Windows are aligned (`floor(now / windowMs)`), so all keys of a bucket share one window and
 * the bucket's table is dropped whole when it ends: nothing is ever evicted early, so a flood of
 * new keys cannot reset anyone's live window. Memory is bounded per bucket instead: once a
 * bucket holds `maxKeysPerBucket` keys in its window, a key it has not seen is refused until the
 * window ends (a bucket has one window length; a call with another starts a new window).
 */
export function createMemoryRateLimiter(options: { maxKeysPerBucket?: number } = {}): MemoryRateLimiter {
  const maxKeys = options.maxKeysPerBucket ?? DEFAULT_MAX_KEYS_PER_BUCKET;
  const buckets = new Map<string, BucketWindow>();
  return {
    consume(bucket, key, rule, nowMs) {
      const start = Math.floor(nowMs / rule.windowMs) * rule.windowMs;
      dropEnded(buckets, nowMs);
      let w = buckets.get(bucket);
      if (!w || w.start !== start || w.windowMs !== rule.windowMs) {
        w = { start, windowMs: rule.windowMs, counts: new Map() };
        buckets.set(bucket, w);
      }
      const seen = w.counts.get(key);
      if (seen === undefined && w.counts.size >= maxKeys) return decision(rule.limit + 1, start, rule, nowMs);
      const count = (seen ?? 0) + 1;
      w.counts.set(key, count);
      return decision(count, start, rule, nowMs);
    },
  };
}

/** A bucket nobody touched since its window ended holds only dead counts. */
function dropEnded(buckets: Map<string, BucketWindow>, nowMs: number): void {
  for (const [name, w] of buckets) if (nowMs >= w.start + w.windowMs) buckets.delete(name);
}

export function decision(count: number, windowStart: number, rule: RateRule, nowMs: number): RateDecision {
  return {
    allowed: count <= rule.limit,
    remaining: Math.max(0, rule.limit - count),
    retryAfterSeconds: Math.max(1, Math.ceil((windowStart + rule.windowMs - nowMs) / 1000)),
  };
}
