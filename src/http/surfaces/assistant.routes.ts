import { Elysia } from "elysia";
import type { OwnerTokens } from "../../security/owner-token.ts";
import type { SurfaceDeps } from "../deps.ts";
import { draftRoutes } from "./drafts.routes.ts";
import { importRoutes } from "./import.routes.ts";
import { profileRoutes } from "./profile.routes.ts";
import { relationshipRoutes } from "./relationships.routes.ts";
import { ruleRoutes } from "./rules.routes.ts";

/**
 * The owner's assistant (issue 6): relationship notes, automation rules and the autonomy policy,
 * drafts and summaries, profile snapshots, LinkedIn import, transcription. All under the owner
 * bearer token; one `.use` in the composition root.
 */
export function assistantRoutes(deps: SurfaceDeps, o: { tokens: Pick<OwnerTokens, "verify"> }) {
  return new Elysia({ name: "kith/assistant" })
    .use(relationshipRoutes(deps, o))
    .use(ruleRoutes(deps, o))
    .use(profileRoutes(deps, o))
    .use(draftRoutes(deps, o))
    .use(importRoutes(deps, o));
}
