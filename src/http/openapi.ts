import { toOpenAPISchema } from "@elysiajs/openapi";
import { toJsonSchema, type ConversionConfig } from "@valibot/to-json-schema";
import type { AnyElysia } from "elysia";
import * as v from "valibot";
import { EXTENSION_SCOPES } from "../domain/extensions/scopes.ts";
import { ownerCheckOf } from "./plugins/owner-auth.ts";
import { bodyReader, type RouteHooks } from "./plugins/route-options.ts";
import { bodySpecOf } from "./schemas/body.ts";
import { ErrorBody } from "./schemas/common.ts";

export const OPENAPI_VERSION = "0.1.0";

/**
 * The OpenAPI 3.1 description, generated from the route schemas of the running app, so it grows
 * with every route and cannot drift from the code.
 */
export function buildOpenApiDocument(app: AnyElysia, options: { publicUrl: string; kithVersion: string }): Record<string, unknown> {
  // staticFile: false — otherwise every path with a dot (/ai.txt, /.well-known/*, agent.json) is skipped.
  const generated = toOpenAPISchema(app, { staticFile: false }, undefined, { valibot: mapValibot, kith: mapBody } as never, "3.1.0");
  const paths = tidySchemas(generated.paths) as Paths;
  describeRoutes(app.routes, paths);
  return {
    openapi: "3.1.0",
    info: {
      title: "Kith node",
      version: OPENAPI_VERSION,
      description:
        `Public surface of a Kith personal agent node (kith ${options.kithVersion}). INK inter-agent endpoints, owner ` +
        "sign-in, the owner API (/api/svc), discovery and the machine-readable documents.",
    },
    servers: [{ url: options.publicUrl }],
    tags: [
      { name: "Discovery", description: "Agent Card, handle lookup and machine-readable documents" },
      { name: "Node", description: "Health" },
      { name: "Owner sign-in", description: "Email code, Google, Apple and AT Protocol sign-in for the node's one owner; refresh and logout" },
      { name: "Owner", description: "The owner API (/api/svc), behind the owner bearer token" },
      { name: "Discovery registry", description: "Publishing the agent to the registry and to directories; the directory's listings (owner)" },
      { name: "Extensions", description: "Owner extension management (/api/svc/extensions)" },
      { name: "Extension API", description: "/ext/v1: what an installed extension may do for the owner, behind its delegation token and request signature" },
      { name: "INK", description: "Signed inter-agent endpoints: intents, card queries, directory listings, discovery queries" },
    ],
    paths,
    components: {
      schemas: tidySchemas(generated.components.schemas ?? {}),
      securitySchemes: {
        ownerBearer: { type: "http", scheme: "bearer", bearerFormat: "JWT", description: "Owner access token from /auth/*" },
        extensionDelegation: {
          type: "http",
          scheme: "bearer",
          bearerFormat: "Kith delegation token",
          description:
            "Authorization: Bearer <delegation token>, plus X-Request-Nonce, X-Request-Timestamp and X-Extension-Signature over METHOD\\nTARGET\\nNONCE\\nTIMESTAMP\\nhex(sha256(body)) (docs/extensions.md)",
        },
        inkSignature: {
          type: "apiKey",
          in: "header",
          name: "Authorization",
          description: "INK transport signature: `INK-Ed25519 <base64url signature> keyId=<id>` over the INK signature base",
        },
      },
    },
    "x-svc": { extensionScopes: EXTENSION_SCOPES },
  };
}

type Operation = { requestBody?: unknown; responses?: Record<string, unknown> };
type Paths = Record<string, Record<string, Operation>>;

/**
 * What the generator cannot know: request bodies as the request gate reads them
 * (plugins/request-gate.ts: the media types a route accepts, whether a body is required, the
 * refusals every body route can answer, 400, 413, 415, and 429 where a per-address limit
 * applies, owner routes included), and responses a route declares in `detail.responses` beside its schemas (a
 * redirect, a document served as a Response).
 */
function describeRoutes(routes: AnyElysia["routes"], paths: Paths): void {
  for (const route of routes) {
    const op = paths[route.path.replace(/:([^/]+)/g, "{$1}")]?.[route.method.toLowerCase()];
    if (!op) continue;
    const hooks = route.hooks as RouteHooks & { detail?: { responses?: Record<string, unknown> } };
    if (hooks.detail?.responses) op.responses = { ...op.responses, ...hooks.detail.responses };
    const spec = bodySpecOf(hooks.body);
    const schema = spec?.schema ?? hooks.bodyDoc;
    if (schema) {
      const json = { schema: tidySchemas(mapValibot(schema)) };
      const required = !v.safeParse(schema, undefined).success;
      op.requestBody = { required, content: { "application/json": json, ...(spec?.form ? { "application/x-www-form-urlencoded": json } : {}) } };
    }
    if (route.method !== "GET" && route.method !== "HEAD" && bodyReader(hooks) === "json") addErrors(op, [400, 413, 415]);
    // Owner routes: the gate checks the token first and throttles an address that keeps failing it.
    if (hooks.perIp || ownerCheckOf(hooks.transform)) addErrors(op, [429]);
  }
}

function addErrors(op: Operation, statuses: number[]): void {
  op.responses ??= {};
  for (const status of statuses) {
    op.responses[status] ??= { description: `Response for status ${status}`, content: { "application/json": { schema: tidySchemas(mapValibot(ErrorBody)) } } };
  }
}

const CONVERSION: ConversionConfig = {
  target: "draft-2020-12",
  errorMode: "ignore",
  overrideAction: ({ valibotAction, jsonSchema }) => {
    // wireDoc (domain/internal/wire-doc.ts): a value written on the wire differently from what it becomes.
    const wire = valibotAction.type === "metadata" ? (valibotAction as unknown as { metadata: { wire?: unknown } }).metadata.wire : undefined;
    if (wire && typeof wire === "object") return wire as Record<string, unknown>;
    // JSON Schema patterns have no flags: a case-insensitive regex would refuse what the node takes.
    if (valibotAction.type === "regex" && (valibotAction as unknown as { requirement: RegExp }).requirement.flags !== "") {
      const { pattern: _, ...rest } = jsonSchema;
      return rest;
    }
    return undefined;
  },
};

function mapValibot(schema: unknown): Record<string, unknown> {
  return toJsonSchema(schema as never, CONVERSION) as Record<string, unknown>;
}

function mapBody(schema: unknown): Record<string, unknown> {
  return mapValibot(bodySpecOf(schema)?.schema ?? v.unknown());
}

/**
 * Each generated schema repeats `$schema` (inside an OpenAPI 3.1 document the dialect is
 * implied); and the generator folds a nullable enum into `type: [T, "null"]` but leaves null
 * out of `enum`, which then refuses the null it means to allow.
 */
function tidySchemas<T>(value: T): T {
  if (Array.isArray(value)) return value.map(tidySchemas) as T;
  if (value && typeof value === "object") {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) if (k !== "$schema") out[k] = tidySchemas(v);
    if (Array.isArray(out.enum) && Array.isArray(out.type) && out.type.includes("null") && !out.enum.includes(null)) out.enum = [...out.enum, null];
    return out as T;
  }
  return value;
}
