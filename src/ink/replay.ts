// Replay protection (INK §8): nonce grammar, the injected nonce store, and the standalone
// `checkReplay` helper with the reference's `expired_message` / `duplicate_nonce` codes.
import { checkFreshness, parseTimestamp } from "./timestamp.ts";

const REPLAY_NONCE = /^[A-Za-z0-9_-]{16,256}$/;

/** `^[A-Za-z0-9_-]{16,256}$`, the replay nonce grammar of transport auth (INK §1, §8). */
export function isReplayNonce(value: unknown): value is string {
  return typeof value === "string" && REPLAY_NONCE.test(value);
}

/**
 * A synchronous single-use store, e.g. an `INSERT … ON CONFLICT DO NOTHING` inside the app's
 * SQLite transaction. `addIfAbsent` returns true when the nonce was recorded now, false when it
 * was already there; throwing means the backend failed (`nonce_store_error`, fail closed).
 * `scope` is the canonical sender principal (never the raw `from`, INK §8).
 */
export interface NonceStore {
  addIfAbsent(scope: string, nonce: string): boolean;
}

export type NonceRecordResult = { ok: true } | { ok: false; reason: "nonce_replay" | "nonce_store_error" };

/** Record a nonce through a store, mapping its answer to INK codes. */
export function recordNonce(store: NonceStore, scope: string, nonce: string): NonceRecordResult {
  try {
    return store.addIfAbsent(scope, nonce) === true ? { ok: true } : { ok: false, reason: "nonce_replay" };
  } catch {
    return { ok: false, reason: "nonce_store_error" };
  }
}

/**
 * An in-memory store for tests and tools (not for the server: nonces must survive restarts).
 * `has` is the read a grant verifier makes before its last checks (grant-kit.ts).
 */
export function createMemoryNonceStore(seed: Iterable<readonly [string, string]> = []): NonceStore & { has(scope: string, nonce: string): boolean; size(): number } {
  const seen = new Set<string>();
  const key = (scope: string, nonce: string) => `${scope.length}:${scope}${nonce}`;
  for (const [scope, nonce] of seed) seen.add(key(scope, nonce));
  return {
    has: (scope, nonce) => seen.has(key(scope, nonce)),
    addIfAbsent(scope, nonce) {
      const k = key(scope, nonce);
      if (seen.has(k)) return false;
      seen.add(k);
      return true;
    },
    size: () => seen.size,
  };
}

export type ReplayInput = {
  timestamp: unknown;
  nonce: unknown;
  now: number;
  /** Has this nonce been seen inside the retention window? */
  seen: (nonce: string) => boolean;
  /** Handshake messages only cap nonces at 1..256 ([C13]); everything else uses the grammar. */
  nonceRule?: "replay" | "handshake";
};

export type ReplayDecision = { ok: true } | { ok: false; reason: "expired_message" | "duplicate_nonce" };

/**
 * Standalone replay decision (INK §8 `checkReplay`): a malformed nonce, an unparseable, stale or
 * future timestamp is `expired_message` (nonce shape first); a seen nonce is `duplicate_nonce`.
 */
export function checkReplay(input: ReplayInput): ReplayDecision {
  const nonceOk =
    input.nonceRule === "handshake"
      ? typeof input.nonce === "string" && input.nonce.length >= 1 && input.nonce.length <= 256
      : isReplayNonce(input.nonce);
  if (!nonceOk) return { ok: false, reason: "expired_message" };
  const ts = parseTimestamp(input.timestamp);
  if (ts === null || !Number.isFinite(input.now) || checkFreshness(ts, input.now) !== "fresh") {
    return { ok: false, reason: "expired_message" };
  }
  return input.seen(input.nonce as string) ? { ok: false, reason: "duplicate_nonce" } : { ok: true };
}
