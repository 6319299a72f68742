import type { AgentActor, Ctx } from "../context.ts";
import { DomainError } from "../errors.ts";

/**
 * The first line of every owner-facing verb: the owner (the owner bearer plugin's actor), or the
 * node acting for its owner in-process (a CLI verb, a job: the `system` actor). The route plugin
 * already refused anyone else; this keeps a verb safe wherever it is called from.
 * @example requireOwner(ctx, "writes rules") // forbidden: "only the owner writes rules"
 */
export function requireOwner(ctx: Pick<Ctx, "actor">, what: string): void {
  if (ctx.actor.kind === "owner" || ctx.actor.kind === "system") return;
  throw new DomainError("forbidden", `only the owner ${what}`);
}

/** The first line of every verb that answers a signed INK request: the verified sender (http/plugins/ink-signature.ts). */
export function requireAgent(ctx: Pick<Ctx, "actor">): AgentActor {
  if (ctx.actor.kind === "agent") return ctx.actor;
  throw new DomainError("forbidden", "only a verified INK sender can make this request");
}
