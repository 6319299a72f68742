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
 * Fetches the node decides on itself (deliveries, re-validation, known peers' refreshes) are not gated.
 */
export interface FetchBudgetOptions {
  global: RateRule;
  perHost: RateRule;
  perSource: RateRule;
  negativeTtlMs: number;
  /** Negative entries kept at most; the oldest go first (losing one costs one more, budgeted, fetch). */
  maxNegative: number;
}

export const DEFAULT_FETCH_BUDGET: FetchBudgetOptions = {
  global: { limit: 120, windowMs: 60_000 },
  perHost: { limit: 30, windowMs: 60_000 },
  perSource: { limit: 20, windowMs: 60_000 },
  negativeTtlMs: 5 * 60_000,
  maxNegative: 10_000,
};

export interface FetchBudget {
  /** A PeerHttp for fetches that `source` caused at instant `now`. */
  gate(http: PeerHttp, source: string | null, now: number): PeerHttp;
  /** Remember that `url` gave nothing usable (e.g. a card that failed its checks after a 200). */
  failed(url: string, now: number): void;
}

export function createFetchBudget(limiter: MemoryRateLimiter, options: FetchBudgetOptions = DEFAULT_FETCH_BUDGET): FetchBudget {
  const negative = new Map<string, number>(); // url → until; insertion order = expiry order (one TTL)
  const failed = (url: string, now: number) => {
    negative.delete(url);
    negative.set(url, now + options.negativeTtlMs);
    for (const [key, until] of negative) {
      if (until > now && negative.size <= options.maxNegative) break;
      negative.delete(key);
    }
  };
  return {
    failed,
    gate(http, source, now) {
      return {
        async request(url, init) {
          const until = negative.get(url);
          if (until !== undefined && until > now) return throttled("this URL gave nothing usable a moment ago; not fetched again yet");
          const host = hostOf(url);
          if (host === null) return http.request(url, init); // refused by the SSRF gate without any I/O
          const spent =
            !limiter.consume("stranger-fetch", "all", options.global, now).allowed ||
            !limiter.consume("stranger-fetch-host", host, options.perHost, now).allowed ||
            !limiter.consume("stranger-fetch-source", source ?? "unknown", options.perSource, now).allowed;
          if (spent) return throttled("too many fetches caused by strangers; retry later");
          const res = await http.request(url, { ...init, stranger: true });
          if (!res.ok || res.status !== 200) failed(url, now);
          return res;
        },
      };
    },
  };
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
