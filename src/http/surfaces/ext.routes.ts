import { Elysia } from "elysia";
import * as v from "valibot";
import { getExtConnection } from "../../domain/extensions/get-ext-connection.ts";
import { getExtIdentity } from "../../domain/extensions/get-ext-identity.ts";
import { getExtLayer } from "../../domain/extensions/get-ext-layer.ts";
import { getExtProfile } from "../../domain/extensions/get-ext-profile.ts";
import { AuditPageQuery, ExtPageQuery, listExtConnections } from "../../domain/extensions/list-ext-connections.ts";
import { listExtAudit } from "../../domain/extensions/list-ext-audit.ts";
import { listExtLayers } from "../../domain/extensions/list-ext-layers.ts";
import { EventsQuery, listExtEvents } from "../../domain/extensions/list-ext-events.ts";
import { ExtIntentInput, sendExtIntent } from "../../domain/extensions/send-ext-intent.ts";
import { bodyHash } from "../../security/extension-request.ts";
import { renewExtensionToken, RenewTokenInput } from "../../domain/extensions/renew-extension-token.ts";
import { EXTENSION_SCOPES } from "../../domain/extensions/scopes.ts";
import { nativeStrictVerifier } from "../../security/ed25519-native.ts";
import { PUBLIC, type SurfaceDeps } from "../deps.ts";
import { EXT_SECURITY, extBody, extensionAuth, noteExtensionInstallation } from "../plugins/extension-auth.ts";
import { isJsonRequest, readRawBody } from "../plugins/raw-body.ts";
import { routeOptions } from "../plugins/route-options.ts";
import { AuditEventDoc, extErrors } from "../schemas/extensions.ts";
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
        const renewed = await renewExtensionToken(deps.ctx(PUBLIC), input, { nonce: h.get("x-request-nonce"), timestamp: h.get("x-request-timestamp"), signature: h.get("x-extension-signature"), method: "POST", target, body: raw }, nativeStrictVerifier);
        noteExtensionInstallation(request, renewed.installationId);
        return renewed;
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
    .post(
      "/intents",
      async ({ actor, rawBody, request, set }) => {
        const input = extBody(rawBody, ExtIntentInput);
        const key = request.headers.get("idempotency-key");
        if (key !== null && !/^[A-Za-z0-9_.:-]{1,128}$/.test(key)) throw new DomainError("invalid_input", "Idempotency-Key: 1 to 128 characters of [A-Za-z0-9_.:-]");
        const result = await sendExtIntent(deps.ctx(actor), input, key === null ? null : { key, bodyHash: bodyHash(rawBody) });
        set.status = result.status === "queued" ? 200 : 202;
        return result;
      },
      {
        parse: "none",
        extension: { maxBytes: 64 * 1024, bucket: "intents" },
        bodyDoc: ExtIntentInput,
        response: {
          200: v.object({ status: v.literal("queued"), intentId: v.string(), correlationId: v.string(), tier: v.string() }),
          202: v.object({ status: v.literal("pending_approval"), approvalId: v.string(), intentId: v.string(), correlationId: v.string(), tier: v.string() }),
          ...extErrors(400, 401, 403, 404, 409, 413, 415, 422, 429),
        },
        detail: doc(
          "Send an intent for the owner",
          "to: a contact in a granted layer (404 otherwise); intent: one the manifest declares (403 intent_not_declared). Tiers: ping, *_response, context_share, retract transactional; ask, follow_up, schedule_meeting, opportunity social; connection_request, intro_request, multi_party_sync personal. Above the token's maxAutonomyTier or the owner's autonomy policy (none/draft_only: nothing on its own; auto_respond: transactional; full: up to the token's tier) it is held: 202 pending_approval with approvalId (the owner decides at /api/svc/pending). Idempotency-Key: the same key answers the first answer for 24 h (422 idempotency_key_reused with another body). 60 per minute per installation.",
          "intents:send",
        ),
      },
    )
    .get("/events", ({ actor, query }) => listExtEvents(deps.ctx(actor), query), {
      ...GET,
      query: EventsQuery,
      response: {
        200: v.object({
          streamId: v.string(),
          events: v.array(
            v.object({
              seq: v.number(),
              id: v.string(),
              kind: v.string(),
              occurredAt: v.string(),
              subject: v.object({ type: v.string(), id: v.string(), layer: v.optional(v.string()) }),
              data: v.record(v.string(), v.unknown()),
              v: v.literal(1),
            }),
          ),
          nextSince: v.number(),
          hasMore: v.boolean(),
          latest: v.number(),
          oldestAvailable: v.number(),
          gap: v.optional(v.object({ reason: v.literal("since_before_retention"), from: v.number(), to: v.number() })),
        }),
        400: v.object({ error: v.string(), message: v.string(), latest: v.optional(v.number()), streamId: v.optional(v.string()) }),
        ...extErrors(401, 403, 429),
      },
      detail: doc(
        "The event feed",
        "Events after since (exclusive; omitted = from now), at most limit (default 100, max 500), kinds filtered by the manifest's events[] and the kinds query (noun.* wildcards), visibility decided at read time (permission, own intents and approvals, the contact's layer now). nextSince is the last sequence scanned: pass it as since. 400 since_in_future past latest; gap when since is older than what is kept.",
        "events:subscribe",
      ),
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
