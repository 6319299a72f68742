import { Elysia } from "elysia";
import * as v from "valibot";
import { receiveIntent, type ReceiveOutcome } from "../../domain/inbox/receive-intent.ts";
import { queryAgentCard } from "../../domain/identity/query-card.ts";
import { AgentCardDoc } from "../schemas/card.ts";
import { consumeClient, type SurfaceDeps } from "../deps.ts";
import { inkErrorBody, inkStatus } from "../ink-errors.ts";
import { isJsonRequest, readRawBody } from "../plugins/raw-body.ts";
import { routeOptions } from "../plugins/route-options.ts";
import { CardQueryBodyDoc, InkEnvelopeBodyDoc } from "../schemas/ink-bodies.ts";

/** INK's inbound body cap (the reference receiver's 64 KiB, INK [C9]). */
const MAX_INBOUND_BYTES = 65_536;
const PER_IP_INTENT = { limit: 120, windowMs: 60_000 };
/** SPEC Limits: POST /agents/:agentId/inbox, 60 requests per minute per IP. */
const PER_IP_INBOX = { limit: 60, windowMs: 60_000 };
const PER_IP_CARD_QUERY = { limit: 60, windowMs: 60_000 };

const Accepted = v.object({
  accepted: v.literal(true),
  id: v.pipe(v.string(), v.description("The envelope id")),
  correlationId: v.string(),
  status: v.pipe(v.picklist(["stored", "pending_approval"]), v.description("stored: in the inbox; pending_approval: held for the owner (202)")),
  pendingActionId: v.optional(v.string()),
});
const InkError = v.object({ error: v.string(), code: v.string(), protocol: v.literal("ink/0.1"), message: v.string() });
const inkErrors = Object.fromEntries([400, 401, 403, 404, 409, 413, 415, 429].map((s) => [s, InkError]));

/**
 * INK inbound endpoints. The body is read once as raw bytes (parse: "none") and every check runs
 * on those exact bytes (INK §4.2, §9) inside the receive verb; this surface only bounds the read,
 * checks the media type, applies per-IP limits and maps reasons to statuses.
 */
export function inkRoutes(deps: SurfaceDeps) {
  const handle = async (request: Request, agentId: string, bucket: string, rule: { limit: number; windowMs: number }) => {
    const ip = deps.clientIp(request);
    const limited = consumeClient(deps, bucket, request, rule);
    if (!limited.allowed) return inkError("rate_limited", undefined, { "retry-after": String(limited.retryAfterSeconds) });
    if (!isJsonRequest(request)) return inkError("unsupported_media_type");
    const body = await readRawBody(request, MAX_INBOUND_BYTES);
    if (body === null) return inkError("body_too_large");
    const outcome = await receiveIntent(
      deps.ctx({ kind: "public", ip }),
      { pathAgentId: agentId, body, authorization: request.headers.get("authorization"), requestPath: new URL(request.url).pathname, cardHint: cardHint(request.headers.get("link")) },
    );
    return respond(outcome);
  };
  const detail = (summary: string) => ({ tags: ["INK"], summary, security: [{ inkSignature: [] }] });
  return new Elysia({ name: "kith/ink" })
    .use(routeOptions)
    .post("/ink/v1/:agentId/intent", ({ request, params }) => handle(request, params.agentId, "ink-intent-ip", PER_IP_INTENT), {
      parse: "none",
      bodyDoc: InkEnvelopeBodyDoc,
      params: v.object({ agentId: v.string() }),
      response: { 200: Accepted, 202: Accepted, ...inkErrors },
      detail: detail("Receive a signed INK envelope (the Agent Card's endpoint). 200 stored, 202 held for the owner."),
    })
    .post("/agents/:agentId/inbox", ({ request, params }) => handle(request, params.agentId, "ink-inbox-ip", PER_IP_INBOX), {
      parse: "none",
      bodyDoc: InkEnvelopeBodyDoc,
      params: v.object({ agentId: v.string() }),
      response: { 200: Accepted, 202: Accepted, ...inkErrors },
      detail: detail("Receive a signed INK envelope (SPEC path; 60 requests per minute per IP)"),
    })
    .post(
      "/ink/v1/:agentId/agent-card-query",
      async ({ request, params }) => {
        const ip = deps.clientIp(request);
        const limited = consumeClient(deps, "card-query-ip", request, PER_IP_CARD_QUERY);
        if (!limited.allowed) return inkError("rate_limited", undefined, { "retry-after": String(limited.retryAfterSeconds) });
        if (!isJsonRequest(request)) return inkError("unsupported_media_type");
        const body = await readRawBody(request, MAX_INBOUND_BYTES);
        if (body === null) return inkError("body_too_large");
        const result = await queryAgentCard(
          deps.ctx({ kind: "public", ip }),
          { pathAgentId: params.agentId, body, authorization: request.headers.get("authorization"), requestPath: new URL(request.url).pathname },
        );
        if (!result.ok) return inkError(result.reason, result.detail, result.retryAfterSeconds ? { "retry-after": String(result.retryAfterSeconds) } : undefined);
        return new Response(JSON.stringify(result.card), { headers: { "content-type": "application/json", "cache-control": "private, no-store", "ink-card-scope": result.scope } });
      },
      {
        parse: "none",
        bodyDoc: CardQueryBodyDoc,
        params: v.object({ agentId: v.string() }),
        response: { 200: AgentCardDoc, ...inkErrors },
        detail: {
          ...detail("The Agent Card scoped to an authenticated requester: connections see the connected profile snapshot, others the public one"),
          description:
            "Body: `{protocol: \"ink/0.1\", type: \"network.<svc|tulpa|ink>.agent_card_query\", from, to, nonce, timestamp}` with an INK-Ed25519 " +
            "transport signature over this path. 401 when unsigned or the signature fails, 429 over the limit.",
        },
      },
    );
}

function respond(outcome: ReceiveOutcome): Response {
  if (!outcome.ok) {
    return inkError(outcome.reason, outcome.detail, outcome.retryAfterSeconds ? { "retry-after": String(outcome.retryAfterSeconds) } : undefined);
  }
  const held = outcome.outcome === "held";
  const body = {
    accepted: true,
    id: outcome.envelopeId,
    correlationId: outcome.correlationId,
    status: held ? "pending_approval" : "stored",
    ...(outcome.pendingActionId && held ? { pendingActionId: outcome.pendingActionId } : {}),
  };
  return Response.json(body, { status: held ? 202 : 200 });
}

function inkError(reason: string, detail?: string, headers?: Record<string, string>): Response {
  return Response.json(inkErrorBody(reason, detail), { status: inkStatus(reason), ...(headers ? { headers } : {}) });
}

/** `Link: <https://…/agent.json>; rel="agent-card"` — the sender's card, a hint for first contact only. */
export function cardHint(link: string | null): string | null {
  if (!link || link.length > 4096) return null;
  for (const part of link.split(",")) {
    const m = /^\s*<([^>]{1,2048})>\s*;\s*rel="?agent-card"?\s*$/i.exec(part);
    if (m) return m[1]!;
  }
  return null;
}
