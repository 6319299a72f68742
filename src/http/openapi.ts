import { toOpenAPISchema } from "@elysiajs/openapi";
import { toJsonSchema } from "@valibot/to-json-schema";
import type { AnyElysia } from "elysia";
import { EXTENSION_SCOPES } from "../domain/extensions/scopes.ts";

export const OPENAPI_VERSION = "0.1.0";

/**
 * The OpenAPI 3.1 description, generated from the route schemas of the running app, so it grows
 * with every route and cannot drift from the code.
 */
export function buildOpenApiDocument(app: AnyElysia, options: { publicUrl: string; kithVersion: string }): Record<string, unknown> {
  // staticFile: false — otherwise every path with a dot (/ai.txt, /.well-known/*, agent.json) is skipped.
  const generated = toOpenAPISchema(app, { staticFile: false }, undefined, { valibot: mapValibot } as never, "3.1.0");
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
      { name: "INK", description: "Signed inter-agent endpoints: intents, card queries, directory listings, discovery queries" },
    ],
    paths: stripSchemaKeys(generated.paths),
    components: {
      schemas: stripSchemaKeys(generated.components.schemas ?? {}),
      securitySchemes: {
        ownerBearer: { type: "http", scheme: "bearer", bearerFormat: "JWT", description: "Owner access token from /auth/*" },
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

function mapValibot(schema: unknown): unknown {
  return toJsonSchema(schema as never, { target: "draft-2020-12", errorMode: "ignore" });
}

/** Each generated schema repeats `$schema`; inside an OpenAPI 3.1 document the dialect is implied. */
function stripSchemaKeys<T>(value: T): T {
  if (Array.isArray(value)) return value.map(stripSchemaKeys) as T;
  if (value && typeof value === "object") {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) if (k !== "$schema") out[k] = stripSchemaKeys(v);
    return out as T;
  }
  return value;
}
