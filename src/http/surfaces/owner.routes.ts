import { Elysia } from "elysia";
import * as v from "valibot";
import { CreateAgentInput } from "../../domain/identity/check-agent-input.ts";
import { createAgentForOwner } from "../../domain/identity/create-agent-for-owner.ts";
import { getIdentity } from "../../domain/identity/get-identity.ts";
import { CardVisibilityInput, setCardVisibility } from "../../domain/agent-card/set-card-visibility.ts";
import type { OwnerTokens } from "../../security/owner-token.ts";
import type { SurfaceDeps } from "../deps.ts";
import { OWNER_SECURITY, ownerAuth } from "../plugins/owner-auth.ts";
import { jsonBody } from "../schemas/body.ts";
import { errors } from "../schemas/common.ts";

/**
 * The owner API's root (`/api/svc`). Every owner surface starts from `ownerApi(tokens)`: an
 * instance under the prefix whose routes all require the owner bearer token and see
 * `actor = {kind: "owner"}`; give each route `detail.security = OWNER_SECURITY` for OpenAPI.
 */
export function ownerApi(tokens: Pick<OwnerTokens, "verify">) {
  return new Elysia({ prefix: "/api/svc" }).use(ownerAuth(tokens));
}

const AgentIdentityDoc = v.object({
  agentId: v.string(),
  handle: v.string(),
  displayName: v.string(),
  timezone: v.string(),
  cardUrl: v.pipe(v.string(), v.url()),
  endpoint: v.pipe(v.string(), v.url()),
  publicKeyMultibase: v.string(),
  currentSigningKeyId: v.string(),
  currentEncryptionKeyId: v.nullable(v.string()),
  keySetVersion: v.number(),
  visibility: v.pipe(v.picklist(["public", "private"]), v.description("private: 404 on the public card paths (PUT /api/svc/visibility)")),
  createdAt: v.string(),
  updatedAt: v.string(),
});

export function ownerRoutes(deps: SurfaceDeps, options: { tokens: Pick<OwnerTokens, "verify"> }) {
  const detail = (summary: string, description: string) => ({ tags: ["Owner"], summary, description, security: OWNER_SECURITY });
  return ownerApi(options.tokens)
    .get("", ({ actor }) => getIdentity(deps.ctx(actor)), {
      response: { 200: AgentIdentityDoc, ...errors(401, 404) },
      detail: detail("The agent's identity", "404 while the node has no agent (POST /api/svc creates it)"),
    })
    .post(
      "",
      ({ actor, body, set }) => {
        const identity = createAgentForOwner(deps.ctx(actor), body);
        set.status = 201;
        return identity;
      },
      {
        body: jsonBody(CreateAgentInput),
        response: { 201: AgentIdentityDoc, ...errors(400, 401, 409) },
        detail: detail("Create the agent", "For a node started without one: new Ed25519 signing and X25519 encryption keys in agent-key.json. 409 when the agent exists."),
      },
    )
    .put("/visibility", ({ actor, body }) => setCardVisibility(deps.ctx(actor), body), {
      body: jsonBody(CardVisibilityInput),
      response: { 200: v.object({ visibility: v.picklist(["public", "private"]) }), ...errors(400, 401, 404, 409) },
      detail: detail(
        "Make the Agent Card public or private",
        "private (SPEC: 404 when the agent is absent or private): the card paths (/ink/v1/{agentId}/agent.json, /agents/{agentId}/agent.json, " +
          "/.well-known/ink/agent.json) answer 404 and GET /{handle} answers found: false, as if there were no agent; connections still get the card " +
          "through the signed agent-card-query, anyone else gets 404 there too. Nobody new can find or reach the agent: publishing is refused while " +
          "private (409), and a published agent must be unpublished before it can go private (409).",
      ),
    });
}
