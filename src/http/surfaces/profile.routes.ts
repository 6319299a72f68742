import * as v from "valibot";
import { deleteProfileSnapshot } from "../../domain/profile/delete-profile-snapshot.ts";
import { listProfileSnapshots, ProfileScopeParam, ProfilesQuery } from "../../domain/profile/list-profile-snapshots.ts";
import { PutProfileInput, putProfileSnapshot } from "../../domain/profile/put-profile-snapshot.ts";
import type { OwnerTokens } from "../../security/owner-token.ts";
import type { SurfaceDeps } from "../deps.ts";
import { OWNER_SECURITY } from "../plugins/owner-auth.ts";
import { ProfileSnapshotDoc } from "../schemas/assistant.ts";
import { jsonBody } from "../schemas/body.ts";
import { errors } from "../schemas/common.ts";
import { pageDoc } from "../schemas/federation.ts";
import { ownerApi } from "./owner.routes.ts";

const SCOPES = "public: the Agent Card, discovery and connection requests to strangers · connected: connection responses and card queries from connections (falls back to public) · custom scopes (at most 20).";

/** Profile snapshots by scope (SPEC `GET /api/svc/profile`, `PUT/DELETE /api/svc/profile/:scope`). */
export function profileRoutes(deps: SurfaceDeps, o: { tokens: Pick<OwnerTokens, "verify"> }) {
  const doc = (summary: string, description: string) => ({ tags: ["Profile"], summary, description, security: OWNER_SECURITY });
  return ownerApi(o.tokens)
    .get("/profile", ({ actor, query }) => listProfileSnapshots(deps.ctx(actor), query), {
      query: ProfilesQuery,
      response: { 200: pageDoc(ProfileSnapshotDoc), ...errors(400, 401) },
      detail: doc("Profile snapshots", `The stored snapshots by scope name. ${SCOPES} Paginated: \`limit\` (1-200, default 50) and \`cursor\`.`),
    })
    .put("/profile/:scope", ({ actor, params, body }) => putProfileSnapshot(deps.ctx(actor), params.scope, body), {
      params: ProfileScopeParam,
      body: jsonBody(PutProfileInput),
      response: { 200: ProfileSnapshotDoc, ...errors(400, 401, 409) },
      detail: doc("Write a profile snapshot", `INK ProfileSnapshot, strict: headline ≤500, skills ≤50 × ≤100, interests ≤50 × ≤100, openTo ≤20 × ≤100 (arrays may be empty, keys required), availability? {timezone ≤64, meetingHours? ≤200, responseSla? ≤200}. ${SCOPES}`),
    })
    .delete(
      "/profile/:scope",
      ({ actor, params }) => {
        deleteProfileSnapshot(deps.ctx(actor), params.scope);
        return { scope: params.scope, deleted: true as const };
      },
      {
        params: ProfileScopeParam,
        response: { 200: v.object({ scope: v.string(), deleted: v.literal(true) }), ...errors(400, 401, 404) },
        detail: doc("Delete a profile snapshot", "The scope then falls back to public, and public to a minimal snapshot (display name as headline, the agent's timezone)."),
      },
    );
}
