import type { Actor, Ctx, Logger } from "../domain/context.ts";
import type { NodeIdentity } from "../domain/identity/agent.ts";
import { DomainError } from "../domain/errors.ts";
import type { MemoryRateLimiter, RateRule } from "../security/rate-limit.ts";

/**
 * What every surface receives from the composition root. Surfaces never see the database: they
 * turn an authenticated actor into a `Ctx` and hand it to one domain verb.
 */
export interface SurfaceDeps {
  ctx(actor: Actor): Ctx;
  node: NodeIdentity & { version: string };
  log: Logger;
  /** The client address (see plugins/client-ip.ts); null when unknown (in-process requests). */
  clientIp(request: Request): string | null;
  limiter: MemoryRateLimiter;
  now(): number;
}

/** Per-minute throttle on the in-memory limiter: throws `rate_limited` (429 + Retry-After). */
export function throttle(deps: SurfaceDeps, bucket: string, key: string | null, rule: RateRule): void {
  const result = deps.limiter.consume(bucket, key ?? "unknown", rule, deps.now());
  if (!result.allowed) {
    throw new DomainError("rate_limited", "too many requests; retry later", { retryAfterSeconds: result.retryAfterSeconds });
  }
}

export const PUBLIC: Actor = { kind: "public", ip: null };
