import { Elysia } from "elysia";
import * as v from "valibot";
import { getExtConnection } from "../../domain/extensions/get-ext-connection.ts";
import { getExtIdentity } from "../../domain/extensions/get-ext-identity.ts";
import { getExtLayer } from "../../domain/extensions/get-ext-layer.ts";
import { getExtProfile } from "../../domain/extensions/get-ext-profile.ts";
import { AuditPageQuery, ExtPageQuery, listExtConnections } from "../../domain/extensions/list-ext-connections.ts";
import { listExtAudit } from "../../domain/extensions/list-ext-audit.ts";
import { listExtLayers } from "../../domain/extensions/list-ext-layers.ts";
import { renewExtensionToken, RenewTokenInput } from "../../domain/extensions/renew-extension-token.ts";
import { EXTENSION_SCOPES } from "../../domain/extensions/scopes.ts";
import { nativeStrictVerifier } from "../../security/ed25519-native.ts";
import { PUBLIC, type SurfaceDeps } from "../deps.ts";
import { EXT_SECURITY, extBody, extensionAuth } from "../plugins/extension-auth.ts";
import { isJsonRequest, readRawBody } from "../plugins/raw-body.ts";
import { routeOptions } from "../plugins/route-options.ts";
import { extErrors } from "../schemas/extensions.ts";
import { DomainError } from "../../domain/errors.ts";

const ContactParam = v.object({ contactId: v.pipe(v.string(), v.minLength(1), v.maxLength(512)) });
const Contact = v.object({
  contactId: v.string(),
  agentId: v.nullable(v.string()),
  handle: v.nullable(v.string()),
  displayName: v.nullable(v.string()),
  status: v.string(),
  layer: v.string(),
  connectedAt: v.nullable(v.string()),
  lastMessageAt: v.nullable(v.string()),
});
const Layer = v.object({ contactId: v.string(), layer: v.string(), health: v.nullable(v.string()) });
const AuditEventDoc = v.looseObject({
  id: v.string(),
  version: v.literal("ink-audit/1"),
  agentId: v.string(),
  sequence: v.number(),
  previousEventHash: v.nullable(v.string()),
  eventType: v.string(),
  timestamp: v.string(),
  agentSignature: v.string(),
});
const Issued = v.object({ installationId: v.string(), delegationToken: v.string(), tokenExpiresAt: v.string() });
const TOKEN_MAX_BYTES = 1024;

/**
 * The extension API (`/ext/v1`, SPEC "Extension API"): every route behind the extension
 * delegation plugin; each verb checks its permission on its first line. `detail["x-svc"]` names
 * the operation's scope and permission in the OpenAPI document.
 */
export function extRoutes(deps: SurfaceDeps) {
  const doc = (summary: string, description: string, permission: string | null) => ({
    tags: ["Extension API"],
    summary,
    description: `${description}${permission ? ` Permission: ${permission} (403 permission_missing with required otherwise).` : ""}`,
    security: EXT_SECURITY,
    "x-svc": { extensionScopes: [scopeOf(permission)], permission },
  });
  const GET = { extension: { maxBytes: 0 } };
  return new Elysia({ prefix: "/ext/v1" })
    .use(routeOptions)
    .post(
      "/token",
      async ({ request }) => {
        if (!isJsonRequest(request)) throw new DomainError("unsupported_media_type", "the body must be application/json");
        const raw = await readRawBody(request, TOKEN_MAX_BYTES);
        if (raw === null) throw new DomainError("payload_too_large", `the body is larger than ${TOKEN_MAX_BYTES} bytes`);
        const input = extBody(raw, RenewTokenInput);
        const h = request.headers;
        const url = request.url;
        const target = url.slice(url.indexOf("/", url.indexOf("://") + 3));
        return renewExtensionToken(deps.ctx(PUBLIC), input, { nonce: h.get("x-request-nonce"), timestamp: h.get("x-request-timestamp"), signature: h.get("x-extension-signature"), method: "POST", target, body: raw }, nativeStrictVerifier);
      },
      {
        parse: "none",
        bodyDoc: RenewTokenInput,
        response: { 200: Issued, ...extErrors(400, 401, 413, 415, 429) },
        detail: {
          ...doc("Renew the delegation token", "Signed with the three extension headers and no Authorization: checks 4–7 (installation_inactive, timestamp_out_of_window, nonce_replayed, signature_invalid). The new token replaces the old one.", null),
          security: [],
        },
      },
    )
    .use(extensionAuth(deps))
    .get("/identity", ({ actor }) => getExtIdentity(deps.ctx(actor)), {
      ...GET,
      response: {
        200: v.object({
          agentId: v.string(),
          ownerTulpaId: v.string(),
          handle: v.string(),
          displayName: v.string(),
          cardUrl: v.string(),
          publicKeyMultibase: v.string(),
          installationId: v.string(),
          extensionId: v.string(),
          permissions: v.array(v.string()),
          layers: v.array(v.string()),
          maxAutonomyTier: v.string(),
        }),
        ...extErrors(401, 404, 429),
      },
      detail: doc("The delegated identity", "The agent the extension acts for and the grant in force.", null),
    })
    .get("/connections", ({ actor, query }) => listExtConnections(deps.ctx(actor), query), {
      ...GET,
      query: ExtPageQuery,
      response: { 200: v.object({ connections: v.array(Contact), total: v.number() }), ...extErrors(400, 401, 403, 429) },
      detail: doc("Contacts in the granted layers", "Connected contacts and known contacts whose layer is granted, by contactId; total counts only those.", "connections:list"),
    })
    .get("/connections/:contactId", ({ actor, params }) => getExtConnection(deps.ctx(actor), params.contactId), {
      ...GET,
      params: ContactParam,
      response: { 200: Contact, ...extErrors(400, 401, 403, 404, 429) },
      detail: doc("One contact", "404 when the contact does not exist or is outside the granted layers (the same answer).", "connections:list"),
    })
    .get("/layers", ({ actor, query }) => listExtLayers(deps.ctx(actor), query), {
      ...GET,
      query: ExtPageQuery,
      response: { 200: v.object({ layers: v.array(v.string()), assignments: v.array(Layer), total: v.number() }), ...extErrors(400, 401, 403, 429) },
      detail: doc("Layer assignments", "The layer and health band of each contact in the granted layers.", "layers:read"),
    })
    .get("/layers/:contactId", ({ actor, params }) => getExtLayer(deps.ctx(actor), params.contactId), {
      ...GET,
      params: ContactParam,
      response: { 200: Layer, ...extErrors(400, 401, 403, 404, 429) },
      detail: doc("One contact's layer", "404 when the contact does not exist or is outside the granted layers.", "layers:read"),
    })
    .get("/profile", ({ actor }) => getExtProfile(deps.ctx(actor)), {
      ...GET,
      response: { 200: v.object({ scope: v.literal("public"), snapshot: v.record(v.string(), v.unknown()) }), ...extErrors(401, 403, 429) },
      detail: doc("The owner's public profile snapshot", "What strangers see on the card and in discovery.", "profile:read"),
    })
    .get("/audit", ({ actor, query }) => listExtAudit(deps.ctx(actor), query), {
      ...GET,
      query: AuditPageQuery,
      response: { 200: v.object({ events: v.array(AuditEventDoc), total: v.number(), limit: v.number(), offset: v.number() }), ...extErrors(400, 401, 429) },
      detail: doc("The installation's own audit chain", "Oldest first, INK audit records (ink-audit/1): sequence +1, previousEventHash, agentSignature over ink/audit-event\\n + JCS. limit default 50, max 200; offset.", null),
    });
}

/** The scope of a permission (the implicit identity permission is `null`). */
export function scopeOf(permission: string | null): string {
  if (permission === null) return "identity.read";
  return Object.entries(EXTENSION_SCOPES).find(([, s]) => s.permissions.includes(permission))?.[0] ?? "identity.read";
}
