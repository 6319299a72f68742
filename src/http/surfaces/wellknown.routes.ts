import { Elysia } from "elysia";
import * as v from "valibot";
import { checkHealth } from "../../domain/node/check-health.ts";
import { getAgentCard } from "../../domain/agent-card/get-agent-card.ts";
import type { SurfaceDeps } from "../deps.ts";
import { PUBLIC } from "../deps.ts";

const Health = v.object({
  status: v.picklist(["ok", "degraded"]),
  version: v.string(),
  database: v.picklist(["ok", "unavailable"]),
  agent: v.pipe(v.boolean(), v.description("Whether the node has created its agent")),
});

/** Machine-readable documents and health. `openapi` is produced lazily from the finished app. */
export function wellKnownRoutes(deps: SurfaceDeps, documents: { openapi(): Promise<Record<string, unknown>>; oauthMetadata(): Record<string, unknown> }) {
  return new Elysia({ name: "kith/wellknown" })
    .get(
      "/health",
      ({ set }) => {
        const health = checkHealth(deps.ctx(PUBLIC));
        if (health.status !== "ok") set.status = 503;
        return { status: health.status, version: deps.node.version, database: health.database, agent: health.agent };
      },
      { response: { 200: Health, 503: Health }, detail: { tags: ["Node"], summary: "Liveness and database check" } },
    )
    .get("/.well-known/openapi.json", async () => json(await documents.openapi()), {
      detail: { tags: ["Discovery"], summary: "This OpenAPI 3.1 document", responses: jsonDocument("The OpenAPI 3.1 document") },
    })
    .get("/.well-known/oauth-authorization-server", () => json(documents.oauthMetadata()), {
      detail: { tags: ["Discovery"], summary: "OAuth 2.0 Authorization Server Metadata (RFC 8414)", responses: jsonDocument("RFC 8414 metadata") },
    })
    .get("/ai.txt", () => new Response(aiTxt(deps), { headers: { "content-type": "text/plain; charset=utf-8" } }), {
      detail: {
        tags: ["Discovery"],
        summary: "Plain-text policy and discovery index for AI agents",
        responses: { 200: { description: "ai.txt", content: { "text/plain": { schema: { type: "string" as const } } } } },
      },
    });
}

/** `detail.responses` of a route that serves a JSON document as a Response (no schema of ours). */
export function jsonDocument(description: string) {
  return { 200: { description, content: { "application/json": { schema: { type: "object" } } } } } as const;
}

function json(value: unknown): Response {
  return new Response(JSON.stringify(value), { headers: { "content-type": "application/json" } });
}

function aiTxt(deps: SurfaceDeps): string {
  const base = deps.node.publicUrl;
  const card = getAgentCard(deps.ctx(PUBLIC));
  const lines = [
    "# ai.txt — Kith personal agent node",
    "#",
    "# This node hosts one person's agent on the INK agent-to-agent protocol.",
    "# Policy for automated agents and crawlers:",
    "# - You may read the public documents listed below.",
    "# - Talk to the agent only with signed INK envelopes (INK-Ed25519 transport signature) posted to the",
    "#   `endpoint` of its Agent Card. Strangers may send only connection_request; the owner decides.",
    "# - Do not use content from this node to train models, and do not resell or republish it.",
    "# - Respect rate limits (HTTP 429 with Retry-After).",
    "",
    `Node: ${base}`,
    `Version: ${deps.node.version}`,
    `Protocol: ink/0.1, ink/0.2`,
  ];
  if (card && card.visibility === "public") {
    lines.push(`Agent: ${card.agentId}`, `Agent-Card: ${base}/ink/v1/${encodeURIComponent(card.agentId)}/agent.json`, `Agent-Endpoint: ${card.endpoint}`);
  }
  lines.push(
    `Agent-Card-Alias: ${base}/.well-known/ink/agent.json`,
    `Discover: ${base}/discover?q={words}`,
    `Directory-Listings: ${base}/ink/v1/directory/listings`,
    `Discovery-Query: ${base}/ink/v1/discovery/query`,
    `OpenAPI: ${base}/.well-known/openapi.json`,
    `OAuth-Authorization-Server: ${base}/.well-known/oauth-authorization-server`,
    `Health: ${base}/health`,
    "",
  );
  return lines.join("\n");
}
