import type { PeerFailure, PeerHttp } from "./peer-http.ts";
import type { MemoryRateLimiter, RateRule } from "../security/rate-limit.ts";

/**
 * Bounds on the fetches a stranger can make this node do (issue 21): a did:web sender's DID
 * document and card, a first-contact card hint, a directory listing's card. Every such fetch goes
 * through `gate`, which refuses (reason `throttled`, no network) when
 * - the same URL failed within `negativeTtlMs` (negative cache: a failure is remembered only to
 *   stop asking again, never as a fact about the agent; INK §12 keeps failures out of the card cache),
 * - or a budget is spent: all strangers together (`global`), per target host (`perHost`, so the
 *   node is not turned against one site), per source (`perSource`, the client address that caused it).
 * Budgets are charged source first: a source over its own quota spends nothing of the host's or
 * the global budget (review of issue 21: two addresses spent a host's budget, six the global one).
 * `verified`/`recentCard` keep the cards that passed every check for `recentTtlMs` (keyed by card
 * URL), so forged requests naming an agent are checked against its card of a moment ago instead of
 * fetching it again on the agent's budgets.
 * Fetches the node decides on itself (deliveries, re-validation, known peers' refreshes) are not gated.
 */
export interface FetchBudgetOptions {
  global: RateRule;
  perHost: RateRule;
  perSource: RateRule;
  negativeTtlMs: number;
  /** Negative entries kept at most; the oldest go first (losing one costs one more, budgeted, fetch). */
  maxNegative: number;
  recentTtlMs: number;
  /** Recently verified cards kept at most (each ≤ 64 KiB); the oldest go first. */
  maxRecent: number;
  claimTtlMs: number;
  /** Nonce claims held at most; the oldest go first. */
  maxClaims: number;
  /** Fetches again of a card URL inside its throttle, for a key the card does not list: per URL, and once per URL and key id. */
  recheck: RateRule;
}

export const DEFAULT_FETCH_BUDGET: FetchBudgetOptions = {
  global: { limit: 120, windowMs: 60_000 },
  perHost: { limit: 30, windowMs: 60_000 },
  perSource: { limit: 20, windowMs: 60_000 },
  negativeTtlMs: 5 * 60_000,
  maxNegative: 10_000,
  recentTtlMs: 60_000,
  maxRecent: 1_000,
  recheck: { limit: 2, windowMs: 60_000 },
  claimTtlMs: 60_000,
  maxClaims: 100_000,
};

export interface FetchBudget {
  /** A PeerHttp for fetches that `source` caused at instant `now`. */
  gate(http: PeerHttp, source: string | null, now: number): PeerHttp;
  /** Remember that `url` gave nothing usable (e.g. a card that failed its checks after a 200). */
  failed(url: string, now: number): void;
  /** Remember that `url` gave a card that passed every check (`cardJson`: the card as bound). */
  verified(url: string, cardJson: string, now: number): void;
  /** The card `url` gave within `recentTtlMs`, if it passed every check then. */
  recentCard(url: string, now: number): string | null;
  /**
   * Whether the card at `url`, fetched a moment ago, may be fetched again now because a request
   * names key `keyId` it does not list (a key may be new: a rotation, a revocation): once per key
   * id, and `recheck.limit` times per URL, in a window.
   */
  mayRecheck(url: string, keyId: string, now: number): boolean;
  /** The card at `url` was just fetched for a request naming `keyId`: that key id is tried. */
  tried(url: string, keyId: string, now: number): void;
  /**
   * Claims a signed request's nonce (`scope nonce`) in memory for `claimTtlMs`: true for the first
   * claim only. A request may cause fetches only with its claim, so copies of one request sent at
   * once (before the first records its nonce) fetch nothing.
   */
  claim(nonceKey: string, now: number): boolean;
}

export function createFetchBudget(limiter: MemoryRateLimiter, options: FetchBudgetOptions = DEFAULT_FETCH_BUDGET): FetchBudget {
  const negative = new Map<string, { until: number }>(); // insertion order = expiry order (one TTL)
  const recent = new Map<string, { until: number; cardJson: string }>(); // the same
  const failed = (url: string, now: number) => {
    recent.delete(url);
    remember(negative, url, { until: now + options.negativeTtlMs }, now, options.maxNegative);
  };
  const claims = new Map<string, { until: number }>(); // the same
  const tryKey = (url: string, keyId: string, now: number) => limiter.consume("stranger-fetch-recheck-key", `${url} ${keyId}`, { limit: 1, windowMs: options.recheck.windowMs }, now).allowed;
  return {
    failed,
    verified(url, cardJson, now) {
      negative.delete(url);
      remember(recent, url, { until: now + options.recentTtlMs, cardJson }, now, options.maxRecent);
    },
    recentCard(url, now) {
      const hit = recent.get(url);
      return hit !== undefined && hit.until > now ? hit.cardJson : null;
    },
    mayRecheck: (url, keyId, now) => tryKey(url, keyId, now) && limiter.consume("stranger-fetch-recheck", url, options.recheck, now).allowed,
    tried: (url, keyId, now) => void tryKey(url, keyId, now),
    claim(nonceKey, now) {
      const held = claims.get(nonceKey);
      if (held !== undefined && held.until > now) return false;
      remember(claims, nonceKey, { until: now + options.claimTtlMs }, now, options.maxClaims);
      return true;
    },
    gate(http, source, now) {
      return {
        async request(url, init) {
          const until = negative.get(url)?.until;
          if (until !== undefined && until > now) return throttled("this URL gave nothing usable a moment ago; not fetched again yet");
          const host = hostOf(url);
          if (host === null) return http.request(url, init); // refused by the SSRF gate without any I/O
          const spent =
            !limiter.consume("stranger-fetch-source", source ?? "unknown", options.perSource, now).allowed ||
            !limiter.consume("stranger-fetch-host", host, options.perHost, now).allowed ||
            !limiter.consume("stranger-fetch", "all", options.global, now).allowed;
          if (spent) return throttled("too many fetches caused by strangers; retry later");
          const res = await http.request(url, { ...init, stranger: true });
          if (!res.ok || res.status !== 200) failed(url, now);
          return res;
        },
      };
    },
  };
}

/** Insertion order is expiry order (one TTL per map): drop the expired and the oldest past `max`. */
function remember<V extends { until: number }>(map: Map<string, V>, key: string, value: V, now: number, max: number): void {
  map.delete(key);
  map.set(key, value);
  for (const [k, v] of map) {
    if (v.until > now && map.size <= max) break;
    map.delete(k);
  }
}

function hostOf(url: string): string | null {
  try {
    return new URL(url).hostname.toLowerCase() || null;
  } catch {
    return null;
  }
}

function throttled(detail: string): PeerFailure {
  return { ok: false, reason: "throttled", detail };
}
