import type { AgentActor, Ctx, ExtensionActor } from "../context.ts";
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

/**
 * The first line of every extension-API verb: an authenticated installation
 * (http/plugins/extension-auth.ts) holding `permission` when one is named; 403
 * `permission_missing` with `required` otherwise (EXTENSIONS §1.7: a flat membership test).
 */
export function requireExtension(ctx: Pick<Ctx, "actor">, permission?: string): ExtensionActor {
  if (ctx.actor.kind !== "extension") throw new DomainError("forbidden", "only an installed extension can make this request");
  if (permission !== undefined && !ctx.actor.permissions.includes(permission)) {
    throw new DomainError("forbidden", `this installation was not granted ${permission}`, { reason: "permission_missing", fields: { required: permission } });
  }
  return ctx.actor;
}
