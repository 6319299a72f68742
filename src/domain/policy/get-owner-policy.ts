import type { Ctx } from "../context.ts";
import { requireOwner } from "../internal/actors.ts";
import { getPolicy } from "./get-policy.ts";
import { type PolicyView, policyView } from "./internal/policy-view.ts";

/** `GET /api/svc/policy`: the policy in force (the defaults until the owner writes one). */
export function getOwnerPolicy(ctx: Ctx): PolicyView {
  requireOwner(ctx, "reads the policy");
  return policyView(getPolicy(ctx.db));
}
