import type { MemoryRateLimiter, RateDecision } from "../../../security/rate-limit.ts";

/**
 * Connection requests strangers may leave in the owner's inbox, all strangers together
 * (docs/decisions/request-limits.md, "Senders and strangers"). A personal node sees a handful a day;
 * key-derived ids cost nothing to make, so without a cap one attacker filled the inbox with 20,000.
 */
export const STRANGER_REQUESTS: ReadonlyArray<{ bucket: string; limit: number; windowMs: number }> = [
  { bucket: "ink-stranger-requests-hour", limit: 60, windowMs: 3_600_000 },
  { bucket: "ink-stranger-requests-day", limit: 300, windowMs: 86_400_000 },
];

/**
 * INK §9 step 11, the per-sender budget (the owner's maxInboundRate per hour), charged in a bucket
 * of its own for senders the node has a relationship with (peers/has-relationship.ts), so a flood of fresh ids, which fills the strangers' bucket, never denies
 * them; strangers' connection requests also spend the caps above, strangers' only.
 */
export function chargeSender(
  limiter: MemoryRateLimiter,
  input: { principal: string; intent: string; related: boolean; perHour: number; now: number },
): RateDecision {
  const related = input.related;
  const own = limiter.consume(related ? "ink-sender-hour" : "ink-stranger-hour", input.principal, { limit: Math.max(1, input.perHour), windowMs: 3_600_000 }, input.now);
  if (!own.allowed || related || input.intent !== "connection_request") return own;
  for (const cap of STRANGER_REQUESTS) {
    const all = limiter.consume(cap.bucket, "all", cap, input.now);
    if (!all.allowed) return all;
  }
  return own;
}
