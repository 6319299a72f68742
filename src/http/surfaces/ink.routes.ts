import { Elysia } from "elysia";
import * as v from "valibot";
import { queryAgentCard } from "../../domain/agent-card/query-agent-card.ts";
import { answerAuditQuery } from "../../domain/audit/answer-audit-query.ts";
import { receiveIntent, type ReceiveOutcome } from "../../domain/inbox/receive-intent.ts";
import { receiveReceipt } from "../../domain/receipts/receive-receipt.ts";
import type { SurfaceDeps } from "../deps.ts";
import { InkRefusal } from "../ink-errors.ts";
import { inkSignature } from "../plugins/ink-signature.ts";
import { routeOptions } from "../plugins/route-options.ts";
import { AgentCardDoc } from "../schemas/card.ts";
import { AuditQueryBodyDoc, CardQueryBodyDoc, InkEnvelopeBodyDoc, ReceiptBodyDoc } from "../schemas/ink-bodies.ts";

/** INK's inbound body cap (the reference receiver's 64 KiB, INK [C9]). */
const MAX_INBOUND_BYTES = 65_536;
const PER_IP_INTENT = { bucket: "ink-intent-ip", limit: 120, windowMs: 60_000 };
/** SPEC Limits: POST /agents/:agentId/inbox, 60 requests per minute per IP. */
const PER_IP_INBOX = { bucket: "ink-inbox-ip", limit: 60, windowMs: 60_000 };
const PER_IP_CARD_QUERY = { bucket: "card-query-ip", limit: 60, windowMs: 60_000 };
const PER_IP_RECEIPT = { bucket: "ink-receipt-ip", limit: 120, windowMs: 60_000 };
const PER_IP_AUDIT = { bucket: "ink-audit-ip", limit: 60, windowMs: 60_000 };
const ReceiptAccepted = v.object({ accepted: v.literal(true), disposition: v.string(), duplicate: v.boolean() });
const AuditResponseDoc = v.pipe(
  v.object({ protocol: v.literal("ink/0.1"), type: v.string(), messageId: v.string(), events: v.array(v.looseObject({})), responseSignature: v.string() }),
  v.description("network.<wordmark>.audit_response: the message's events as a +1-continuous slice, responseSignature over ink/audit-response + JCS(events)"),
);

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
 * INK inbound endpoints, as declarations: the INK signature plugin reads each body once and
 * authenticates the sender (plugins/ink-signature.ts); the route calls its verb with the `agent`
 * actor and maps the outcome to INK's answer.
 */
export function inkRoutes(deps: SurfaceDeps) {
  const detail = (summary: string) => ({ tags: ["INK"], summary, security: [{ inkSignature: [] }] });
  return new Elysia({ name: "kith/ink" })
    .use(routeOptions)
    .use(inkSignature(deps))
    .post("/ink/v1/:agentId/intent", async ({ actor, signed, request }) => respond(await receiveIntent(deps.ctx(actor), { ...signed, cardHint: cardHint(request.headers.get("link")) })), {
      parse: "none",
      inkIntent: { perIp: PER_IP_INTENT, maxBytes: MAX_INBOUND_BYTES },
      bodyDoc: InkEnvelopeBodyDoc,
      params: v.object({ agentId: v.string() }),
      response: { 200: Accepted, 202: Accepted, ...inkErrors },
      detail: detail("Receive a signed INK envelope (the Agent Card's endpoint). 200 stored, 202 held for the owner."),
    })
    .post("/agents/:agentId/inbox", async ({ actor, signed, request }) => respond(await receiveIntent(deps.ctx(actor), { ...signed, cardHint: cardHint(request.headers.get("link")) })), {
      parse: "none",
      inkIntent: { perIp: PER_IP_INBOX, maxBytes: MAX_INBOUND_BYTES },
      bodyDoc: InkEnvelopeBodyDoc,
      params: v.object({ agentId: v.string() }),
      response: { 200: Accepted, 202: Accepted, ...inkErrors },
      detail: detail("Receive a signed INK envelope (SPEC path; 60 requests per minute per IP)"),
    })
    .post(
      "/ink/v1/:agentId/agent-card-query",
      ({ actor, signed }) => {
        const result = queryAgentCard(deps.ctx(actor), signed);
        if (!result.ok) throw new InkRefusal(result.reason, result.detail, result.retryAfterSeconds);
        return new Response(JSON.stringify(result.card), { headers: { "content-type": "application/json", "cache-control": "private, no-store", "ink-card-scope": result.scope } });
      },
      {
        parse: "none",
        inkCardQuery: { perIp: PER_IP_CARD_QUERY, maxBytes: MAX_INBOUND_BYTES },
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
    )
    .post(
      "/ink/v1/receipt",
      ({ actor, signed }) => {
        const result = receiveReceipt(deps.ctx(actor), signed);
        if (!result.ok) throw new InkRefusal(result.reason, result.detail);
        return { accepted: true as const, disposition: result.disposition, duplicate: result.duplicate };
      },
      {
        parse: "none",
        inkReceipt: { perIp: PER_IP_RECEIPT, maxBytes: MAX_INBOUND_BYTES },
        bodyDoc: ReceiptBodyDoc,
        response: { 200: ReceiptAccepted, ...inkErrors },
        detail: detail("A delivery receipt for a message this node sent (AUDIT §1), checked against the message as sent"),
      },
    )
    .post(
      "/ink/v1/audit",
      ({ actor, signed }) => {
        const result = answerAuditQuery(deps.ctx(actor), signed);
        if (!result.ok) throw new InkRefusal(result.reason, result.detail, result.retryAfterSeconds);
        return result.response;
      },
      {
        parse: "none",
        inkAuditQuery: { perIp: PER_IP_AUDIT, maxBytes: MAX_INBOUND_BYTES },
        bodyDoc: AuditQueryBodyDoc,
        response: { 200: AuditResponseDoc, ...inkErrors },
        detail: detail("Bilateral audit exchange (AUDIT §4): the signed lifecycle events of a message, for its sender or recipient only"),
      },
    );
}

function respond(outcome: ReceiveOutcome): Response {
  if (!outcome.ok) throw new InkRefusal(outcome.reason, outcome.detail, outcome.retryAfterSeconds);
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

/** `Link: <https://…/agent.json>; rel="agent-card"` — the sender's card, a hint for first contact only. */
export function cardHint(link: string | null): string | null {
  if (!link || link.length > 4096) return null;
  for (const part of link.split(",")) {
    const m = /^\s*<([^>]{1,2048})>\s*;\s*rel="?agent-card"?\s*$/i.exec(part);
    if (m) return m[1]!;
  }
  return null;
}
