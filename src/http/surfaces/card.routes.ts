import { Elysia } from "elysia";
import * as v from "valibot";
import type { AgentCard } from "../../domain/agent-card/get-agent-card.ts";
import { getPublicAgentCard } from "../../domain/agent-card/get-public-agent-card.ts";
import type { SurfaceDeps } from "../deps.ts";
import { PUBLIC } from "../deps.ts";
import { AgentCardDoc } from "../schemas/card.ts";
import { errors } from "../schemas/common.ts";

const AgentIdParam = v.object({ agentId: v.pipe(v.string(), v.description("The agent id, e.g. svc:z6Mk… (percent-encoded or not)")) });

/**
 * The Agent Card at INK's discovery path (INK §12), the SPEC's `/agents/:agentId` spelling, and
 * the single-agent alias `/.well-known/ink/agent.json`. All three serve the same bytes: the card
 * signed by the current active signing key (INK §13).
 */
export function cardRoutes(deps: SurfaceDeps) {
  const card = (agentId: string | null): Response => cardResponse(getPublicAgentCard(deps.ctx(PUBLIC), agentId));
  const detail = (summary: string) => ({ tags: ["Discovery"], summary });
  return new Elysia({ name: "kith/card" })
    .get("/ink/v1/:agentId/agent.json", ({ params }) => card(params.agentId), {
      params: AgentIdParam,
      response: { 200: AgentCardDoc, ...errors(404) },
      detail: detail("Agent Card at the INK discovery path (404 for any other agent id, or while the owner keeps the card private)"),
    })
    .get("/agents/:agentId/agent.json", ({ params }) => card(params.agentId), {
      params: AgentIdParam,
      response: { 200: AgentCardDoc, ...errors(404) },
      detail: detail("Agent Card (SPEC path)"),
    })
    .get("/.well-known/ink/agent.json", () => card(null), {
      response: { 200: AgentCardDoc, ...errors(404) },
      detail: detail("Alias of this node's Agent Card, byte-identical to the discovery path (INK: nothing may depend on it)"),
    });
}

/** One serializer for every card route, so the alias is byte-identical to the discovery path. */
export function cardResponse(card: AgentCard): Response {
  return new Response(JSON.stringify(card), {
    headers: { "content-type": "application/json", "cache-control": "no-cache" },
  });
}
