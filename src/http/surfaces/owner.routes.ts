import { Elysia } from "elysia";
import * as v from "valibot";
import type { NodeIdentity } from "../../domain/identity/agent.ts";
import { CreateAgentInput } from "../../domain/identity/create-agent.ts";
import { createAgentForOwner } from "../../domain/identity/create-agent-for-owner.ts";
import { getIdentity } from "../../domain/identity/get-identity.ts";
import type { KeyVault } from "../../security/key-vault.ts";
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
  createdAt: v.string(),
  updatedAt: v.string(),
});

export function ownerRoutes(deps: SurfaceDeps, options: { tokens: Pick<OwnerTokens, "verify">; vault: KeyVault; node: NodeIdentity }) {
  const detail = (summary: string, description: string) => ({ tags: ["Owner"], summary, description, security: OWNER_SECURITY });
  return ownerApi(options.tokens)
    .get("", ({ actor }) => getIdentity(deps.ctx(actor), options.node), {
      response: { 200: AgentIdentityDoc, ...errors(401, 404) },
      detail: detail("The agent's identity", "404 while the node has no agent (POST /api/svc creates it)"),
    })
    .post(
      "",
      ({ actor, body, set }) => {
        const identity = createAgentForOwner(deps.ctx(actor), body, { vault: options.vault, node: options.node });
        set.status = 201;
        return identity;
      },
      {
        body: jsonBody(CreateAgentInput),
        response: { 201: AgentIdentityDoc, ...errors(400, 401, 409) },
        detail: detail("Create the agent", "For a node started without one: new Ed25519 signing and X25519 encryption keys in agent-key.json. 409 when the agent exists."),
      },
    );
}
