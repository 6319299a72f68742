import { iso } from "./iso.ts";

/**
 * A retried delivery, one concept for every durable queue that sends to another node (the intent
 * outbox, the directory pushes): the same retry columns (db/schema/retry-columns.ts), the same
 * outcome of an attempt, the same way it settles (give up after MAX_ATTEMPTS, back off
 * exponentially with jitter, honour Retry-After) and the same view of its state.
 */
export const MAX_ATTEMPTS = 30;
/** 1 s, 2 s, 4 s … capped at one hour: about a day of retries before giving up. */
const BACKOFF_BASE_MS = 1_000;
const BACKOFF_CAP_MS = 60 * 60 * 1000;

export type AttemptOutcome<Delivered = object> =
  | ({ kind: "delivered"; status: number } & Delivered)
  | { kind: "retry"; error: string; status?: number; retryAfterMs?: number }
  | { kind: "failed"; error: string; status?: number };

/** The retry columns an attempt writes. */
export interface RetryUpdate {
  attempts: number;
  lastAttemptAt: number;
  lastStatus: number | null;
  status?: "delivered" | "failed";
  deliveredAt?: number;
  lastError: string | null;
  nextAttemptAt?: number;
}

/** How an attempt settles: the outcome that stands (a retry past MAX_ATTEMPTS gives up) and the retry columns to write. */
export function settleAttempt<O extends AttemptOutcome>(outcome: O, previousAttempts: number, now: number): { final: O | Extract<AttemptOutcome, { kind: "failed" }>; update: RetryUpdate } {
  const attempts = previousAttempts + 1;
  const final = outcome.kind === "retry" && attempts >= MAX_ATTEMPTS ? { kind: "failed" as const, error: `gave up after ${attempts} attempts: ${outcome.error}`, ...(outcome.status ? { status: outcome.status } : {}) } : outcome;
  const common = { attempts, lastAttemptAt: now, lastStatus: "status" in final ? (final.status ?? null) : null };
  if (final.kind === "delivered") return { final, update: { ...common, status: "delivered", deliveredAt: now, lastError: null } };
  if (final.kind === "failed") return { final, update: { ...common, status: "failed", lastError: final.error } };
  return { final, update: { ...common, lastError: final.error, nextAttemptAt: now + backoff(attempts, final.retryAfterMs) } };
}

/** Exponential backoff with ±20 % jitter (so queued retries do not fall due together); never sooner than Retry-After (capped at a day). */
export function backoff(attempts: number, retryAfterMs?: number): number {
  const exponential = Math.min(BACKOFF_CAP_MS, BACKOFF_BASE_MS * 2 ** Math.min(attempts - 1, 30));
  const jittered = exponential * (0.8 + jitter() * 0.4);
  return Math.max(jittered, Math.min(retryAfterMs ?? 0, 24 * 60 * 60 * 1000));
}

/** Retry-After as delta-seconds or an HTTP date (RFC 9110 §10.2.3). */
export function parseRetryAfter(value: string | null, now: number): number | null {
  if (!value) return null;
  if (/^\d{1,9}$/.test(value.trim())) return Number(value.trim()) * 1000;
  const date = Date.parse(value);
  return Number.isNaN(date) ? null : Math.max(0, date - now);
}

/** Failures of the peer HTTP client that are the network's (worth trying again), not the peer's answer. */
export function isNetworkFailure(reason: string): boolean {
  return reason === "dns_failed" || reason === "timeout" || reason === "network_error";
}

/** Statuses a peer answers when trying again later may work: 408, 425, 429 and 5xx. */
export function isTransientStatus(status: number | undefined): boolean {
  return status === 408 || status === 425 || status === 429 || (status !== undefined && status >= 500);
}

/** The reason a peer gave in an error body (`code` or `error`, with its message), or null. */
export function errorOf(json: Record<string, unknown> | null): string | null {
  const code = typeof json?.code === "string" ? json.code : typeof json?.error === "string" ? json.error : null;
  if (!code) return null;
  return typeof json?.message === "string" ? `${code}: ${json.message.slice(0, 200)}` : code;
}

/** A JSON object body, or null. */
export function jsonObjectOf(body: Uint8Array): Record<string, unknown> | null {
  try {
    const value = JSON.parse(new TextDecoder().decode(body)) as unknown;
    return value !== null && typeof value === "object" && !Array.isArray(value) ? (value as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

/** How a retried delivery stands, as the owner sees it. */
export interface RetryView {
  attempts: number;
  nextAttemptAt: string | null;
  lastAttemptAt: string | null;
  lastStatus: number | null;
  lastError: string | null;
  deliveredAt: string | null;
}

/** The delivery state the owner sees, from the retry columns: the next attempt only while one is queued. */
export function retryView(row: { status: string; attempts: number; nextAttemptAt: number; lastAttemptAt: number | null; lastStatus: number | null; lastError: string | null; deliveredAt: number | null }): RetryView {
  return {
    attempts: row.attempts,
    nextAttemptAt: row.status === "queued" ? iso(row.nextAttemptAt) : null,
    lastAttemptAt: iso(row.lastAttemptAt),
    lastStatus: row.lastStatus,
    lastError: row.lastError,
    deliveredAt: iso(row.deliveredAt),
  };
}

/** Uniform in [0, 1): jitter only, not a secret. */
function jitter(): number {
  return crypto.getRandomValues(new Uint32Array(1))[0]! / 2 ** 32;
}
