import type { Ctx } from "../../context.ts";
import { DomainError } from "../../errors.ts";

export function providerUnavailable(ctx: Ctx, provider: string, e: Error): DomainError {
  ctx.log.warn("sign-in provider unreachable or misbehaving", { provider, cause: e.message });
  return new DomainError("unavailable", `the ${provider} sign-in service could not be reached; try again later`, { cause: e });
}
