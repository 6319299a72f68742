import { type RateDecision } from "../../../security/rate-limit.ts";
import { DomainError } from "../../errors.ts";

/** Throws `rate_limited` (HTTP 429 with Retry-After) when the decision refuses. */
export function enforce(result: RateDecision, what: string): void {
  if (!result.allowed) throw new DomainError("rate_limited", `too many ${what}; retry later`, { retryAfterSeconds: result.retryAfterSeconds });
}
