import type { Actor, Collaborators, Ctx, Logger, NodeIdentity } from "../domain/context.ts";
import { DomainError } from "../domain/errors.ts";
import { clientKey } from "../security/client-key.ts";
import type { MemoryRateLimiter, RateDecision, RateRule } from "../security/rate-limit.ts";

/**
 * What every surface receives from the composition root. Surfaces never see the database: they
 * turn an authenticated actor into a `Ctx` (with the node's collaborators; each verb takes the
 * ones it names) and hand it to one domain verb.
 */
export interface SurfaceDeps {
  ctx(actor: Actor): Ctx & Collaborators;
  node: NodeIdentity & { version: string };
  log: Logger;
  /** The client address (see plugins/client-ip.ts); null when unknown (in-process requests). */
  clientIp(request: Request): string | null;
  limiter: MemoryRateLimiter;
  now(): number;
}

/** Counts one request of the client in `bucket`, keyed by its address (an IPv6 client by its /64). */
export function consumeClient(deps: SurfaceDeps, bucket: string, request: Request, rule: RateRule): RateDecision {
  return deps.limiter.consume(bucket, clientKey(deps.clientIp(request)), rule, deps.now());
}

/** Per-client throttle on the in-memory limiter: throws `rate_limited` (429 + Retry-After). */
export function throttle(deps: SurfaceDeps, bucket: string, request: Request, rule: RateRule): void {
  const result = consumeClient(deps, bucket, request, rule);
  if (!result.allowed) {
    throw new DomainError("rate_limited", "too many requests; retry later", { retryAfterSeconds: result.retryAfterSeconds });
  }
}

export const PUBLIC: Actor = { kind: "public", ip: null };
