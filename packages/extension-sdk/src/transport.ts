// One signed request with retries (docs/extensions.md "Retries"). Every attempt is signed anew —
// new nonce, new timestamp, new signature — because the node refuses a nonce it has seen.
// Retried: network errors, 408, 429 and 5xx, for GETs and for POSTs that carry an Idempotency-Key
// (a 429 is retried for any request: the node refuses before acting). Backoff 0.5 s doubling to
// 8 s with jitter, or the node's Retry-After. A 401 token_expired / token_revoked renews the token
// once and repeats the request; it does not use up a retry. A 401 nonce_replayed is retried like
// a network error.
import type { PrivateKeyInput } from "./crypto.ts";
import { type ErrorBody, KithError, NetworkError, RateLimitError, errorFromResponse, parseRetryAfter } from "./errors.ts";
import { signRequest } from "./signing.ts";
import type { TokenManager } from "./token.ts";

export type TransportOptions = {
  /** The node's base address, e.g. `https://kith.example` (a path prefix is kept and signed). */
  baseUrl: string;
  privateKey: PrivateKeyInput;
  fetch?: typeof fetch;
  timeoutMs?: number;
  maxRetries?: number;
  /** First backoff delay; doubles per attempt up to 16× (0.5 s → 8 s by default). */
  retryBaseMs?: number;
  /** A Retry-After longer than this is not waited for: the error is thrown instead. */
  maxRetryAfterMs?: number;
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  /** The clock for X-Request-Timestamp and token expiry (default Date.now). */
  now?: () => number;
};

export type CallOptions = {
  query?: Record<string, string | number | boolean | undefined | null>;
  body?: unknown;
  idempotencyKey?: string;
  /** false for POST /ext/v1/token, which is signed but carries no Authorization. */
  auth?: boolean;
  /** Whether transient failures may be retried; defaults to GETs and requests with an Idempotency-Key. */
  retry?: boolean;
  signal?: AbortSignal;
};

export type RawAnswer = { status: number; headers: Headers; body: unknown };

export function defaultSleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}

const RENEWING_CODES = new Set(["token_expired", "token_revoked"]);

export class Transport {
  readonly origin: string;
  readonly prefix: string;
  tokens: TokenManager | null = null;

  constructor(readonly options: TransportOptions) {
    const base = new URL(options.baseUrl);
    if (base.protocol !== "https:" && base.protocol !== "http:") throw new TypeError("baseUrl: an http(s) URL");
    this.origin = base.origin;
    this.prefix = base.pathname.replace(/\/+$/, "");
  }

  target(path: string, query?: CallOptions["query"]): string {
    const params = new URLSearchParams();
    for (const [k, v] of Object.entries(query ?? {})) if (v !== undefined && v !== null) params.set(k, String(v));
    const qs = params.toString();
    return `${this.prefix}${path}${qs ? `?${qs}` : ""}`;
  }

  async call(method: string, path: string, opts: CallOptions = {}): Promise<RawAnswer> {
    const target = this.target(path, opts.query);
    const url = new URL(target, this.origin);
    // Sign exactly what goes on the wire: refuse a target that URL parsing would rewrite.
    if (url.pathname + url.search !== target) throw new TypeError(`path is not in normal form: ${target}`);
    const bodyText = opts.body === undefined ? null : JSON.stringify(opts.body);
    const maxRetries = this.options.maxRetries ?? 2;
    const sleep = this.options.sleep ?? defaultSleep;
    const retryable = opts.retry ?? (method === "GET" || opts.idempotencyKey !== undefined);
    let renewed = false;
    for (let attempt = 0; ; attempt++) {
      const token = opts.auth === false ? null : await this.#tokens().get();
      let answer: RawAnswer | null = null;
      let failure: KithError;
      try {
        answer = await this.#once(method, url, target, bodyText, token, opts);
        if (answer.status < 400) return answer;
        failure = errorFromResponse(answer.status, answer.body as ErrorBody | null, answer.headers);
      } catch (err) {
        if (opts.signal?.aborted) throw err;
        failure = err instanceof KithError ? err : new NetworkError(0, "network_error", err instanceof Error ? err.message : String(err));
      }
      if (token !== null && failure.status === 401 && RENEWING_CODES.has(failure.code) && !renewed) {
        renewed = true;
        await this.#tokens().replace(token);
        attempt--;
        continue;
      }
      // nonce_replayed on a random UUID means a lower layer re-sent our bytes (a fetch re-sending
      // on a dropped keep-alive socket): safe to sign again for a request that may be repeated.
      const transient = failure.status === 0 || failure.status === 408 || failure.status === 429 || failure.status >= 500 || failure.code === "nonce_replayed";
      if (attempt >= maxRetries || !transient || !(retryable || failure.status === 429)) throw failure;
      const hinted = failure instanceof RateLimitError ? failure.retryAfter : answer ? parseRetryAfter(answer.headers.get("retry-after")) : null;
      const base = this.options.retryBaseMs ?? 500;
      const delay = hinted !== null ? hinted * 1000 : Math.min(base * 2 ** attempt, base * 16) * (0.5 + Math.random() / 2);
      if (delay > (this.options.maxRetryAfterMs ?? 60_000)) throw failure;
      await sleep(delay, opts.signal);
    }
  }

  #tokens(): TokenManager {
    if (!this.tokens) throw new Error("no token manager");
    return this.tokens;
  }

  async #once(method: string, url: URL, target: string, bodyText: string | null, token: string | null, opts: CallOptions): Promise<RawAnswer> {
    const timestamp = new Date((this.options.now ?? Date.now)()).toISOString();
    const headers: Record<string, string> = { ...(await signRequest({ method, pathWithQuery: target, body: bodyText, timestamp }, this.options.privateKey)), Accept: "application/json" };
    if (token !== null) headers.Authorization = `Bearer ${token}`;
    if (bodyText !== null) headers["Content-Type"] = "application/json";
    if (opts.idempotencyKey !== undefined) headers["Idempotency-Key"] = opts.idempotencyKey;
    const controller = new AbortController();
    const onAbort = () => controller.abort(opts.signal?.reason);
    opts.signal?.addEventListener("abort", onAbort, { once: true });
    const timer = setTimeout(() => controller.abort(new NetworkError(0, "timeout", "the request timed out")), this.options.timeoutMs ?? 30_000);
    try {
      const res = await (this.options.fetch ?? fetch)(url, { method, headers, body: bodyText, signal: controller.signal, redirect: "error" });
      const text = await res.text();
      let body: unknown = null;
      if (text !== "") {
        try {
          body = JSON.parse(text);
        } catch {
          body = res.ok ? text : { error: `http_${res.status}`, message: text.slice(0, 200) };
        }
      }
      return { status: res.status, headers: res.headers, body };
    } catch (err) {
      if (controller.signal.reason instanceof KithError && !opts.signal?.aborted) throw controller.signal.reason;
      throw err;
    } finally {
      clearTimeout(timer);
      opts.signal?.removeEventListener("abort", onAbort);
    }
  }
}
