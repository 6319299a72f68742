import { Elysia } from "elysia";
import * as v from "valibot";
import { acceptMailboxMessage } from "../../domain/mailbox/accept-mailbox-message.ts";
import { ackMailboxItems } from "../../domain/mailbox/ack-mailbox-items.ts";
import { drainMailboxItems, MAX_DRAIN_WAIT_MS } from "../../domain/mailbox/drain-mailbox-items.ts";
import { getMailboxCard } from "../../domain/mailbox/get-mailbox-card.ts";
import { pollMailbox } from "../../domain/mailbox/poll-mailbox.ts";
import { publishMailboxCard } from "../../domain/mailbox/publish-mailbox-card.ts";
import { consumeClient, PUBLIC, type SurfaceDeps } from "../deps.ts";
import { InkRefusal } from "../ink-errors.ts";
import { isJsonRequest, readRawBody } from "../plugins/raw-body.ts";
import { routeOptions, type PerIpRule } from "../plugins/route-options.ts";
import { AgentCardDoc } from "../schemas/card.ts";
import { errors } from "../schemas/common.ts";
import { InkEnvelopeBodyDoc } from "../schemas/ink-bodies.ts";
import { mailboxSignal } from "../mailbox-signal.ts";
import { cardHint } from "./ink.routes.ts";

const MAX_INTAKE_BYTES = 65_536;
const MAX_HOME_BYTES = 72 * 1024;
const PER_IP_INTAKE: PerIpRule = { bucket: "mailbox-intake-ip", limit: 120, windowMs: 60_000 };
const PER_IP_HOME: PerIpRule = { bucket: "mailbox-home-ip", limit: 120, windowMs: 60_000 };
const Params = v.object({ agentId: v.pipe(v.string(), v.description("The home agent's id")) });
const InkError = v.object({ error: v.string(), code: v.string(), protocol: v.literal("ink/0.1"), message: v.string() });
const inkErrors = Object.fromEntries([400, 401, 403, 404, 409, 413, 415, 429].map((s) => [s, InkError]));
const Signed = v.object({ protocol: v.literal("ink/0.1"), type: v.string(), from: v.string(), to: v.string(), nonce: v.string(), timestamp: v.string() });

/**
 * Mailboxes this node keeps for agents without a public address (docs/decisions/mailbox.md), under
 * `/mailbox`, so INK's own paths apply below that base: a peer fetches the home's card and POSTs to
 * the endpoint it names as to any INK agent; the home drains, acknowledges and publishes its card
 * with signed requests of its own.
 */
export function mailboxRoutes(deps: SurfaceDeps) {
  const signal = mailboxSignal();
  const detail = (summary: string, description?: string) => ({ tags: ["Mailbox"], summary, ...(description ? { description } : {}), security: [{ inkSignature: [] }] });
  const read = async (request: Request, rule: PerIpRule, max: number) => {
    const limited = consumeClient(deps, rule.bucket, request, rule);
    if (!limited.allowed) throw new InkRefusal("rate_limited", undefined, limited.retryAfterSeconds);
    if (!isJsonRequest(request)) throw new InkRefusal("unsupported_media_type");
    const body = await readRawBody(request, max);
    if (body === null) throw new InkRefusal("body_too_large");
    return { body, authorization: request.headers.get("authorization"), path: new URL(request.url).pathname };
  };
  const refuse = (outcome: { reason: string; detail?: string; retryAfterSeconds?: number }): never => {
    throw new InkRefusal(outcome.reason as ConstructorParameters<typeof InkRefusal>[0], outcome.detail, outcome.retryAfterSeconds);
  };
  return new Elysia({ name: "kith/mailbox" })
    .use(routeOptions)
    .get(
      "/mailbox/ink/v1/:agentId/agent.json",
      ({ params }) => {
        const card = getMailboxCard(deps.ctx(PUBLIC), params.agentId);
        if (card === null) return Response.json({ error: "not_found", message: "agent not found" }, { status: 404 });
        return new Response(card, { headers: { "content-type": "application/json", "cache-control": "no-cache" } });
      },
      { params: Params, response: { 200: AgentCardDoc, ...errors(404) }, detail: { tags: ["Mailbox"], summary: "The Agent Card a home agent published to its mailbox here, as it signed it (INK §12 path under the mailbox base)" } },
    )
    .post(
      "/mailbox/ink/v1/:agentId/intent",
      async ({ params, request }) => {
        const input = await read(request, PER_IP_INTAKE, MAX_INTAKE_BYTES);
        const outcome = await acceptMailboxMessage(deps.ctx({ kind: "public", ip: deps.clientIp(request) }), { agentId: params.agentId, body: input.body, authorization: input.authorization, cardHint: cardHint(request.headers.get("link")) });
        if (!outcome.ok) return refuse(outcome);
        signal.notify(outcome.grantId);
        return Response.json({ accepted: true, status: "queued" }, { status: 202 });
      },
      {
        parse: "none",
        bodyDoc: InkEnvelopeBodyDoc,
        params: Params,
        response: { 202: v.object({ accepted: v.literal(true), status: v.literal("queued") }), ...inkErrors },
        detail: detail("Leave a signed INK envelope for a home agent (the endpoint its card names)", "Checked as the home's receiver would at its gate; stored as sent (sealed bodies stay sealed) until the home collects it. 202 queued."),
      },
    )
    .post(
      "/mailbox/ink/v1/:agentId/drain",
      async ({ params, request }) => {
        const input = await read(request, PER_IP_HOME, 4096);
        const ctx = deps.ctx(PUBLIC);
        const outcome = drainMailboxItems(ctx, { agentId: params.agentId, ...input });
        if (!outcome.ok) return refuse(outcome);
        let items = outcome.items;
        // Long-poll: nothing waits, so hold the request until something arrives or the wait ends.
        if (items.length === 0 && outcome.waitMs > 0) {
          await signal.wait(outcome.grantId, Math.min(outcome.waitMs, MAX_DRAIN_WAIT_MS), request.signal);
          items = pollMailbox(ctx, { grantId: outcome.grantId, limit: outcome.limit });
        }
        return Response.json({ items });
      },
      {
        parse: "none",
        bodyDoc: v.object({ ...Signed.entries, limit: v.optional(v.number()), waitMs: v.optional(v.number()) }),
        params: Params,
        response: { 200: v.object({ items: v.array(v.object({ id: v.string(), acceptedAt: v.number(), authorization: v.string(), cardHint: v.nullable(v.string()), body: v.string() })) }), ...inkErrors },
        detail: detail("The home agent collects its mailbox (signed network.ink.mailbox_drain; waits up to waitMs for a first item)"),
      },
    )
    .post(
      "/mailbox/ink/v1/:agentId/ack",
      async ({ params, request }) => {
        const outcome = ackMailboxItems(deps.ctx(PUBLIC), { agentId: params.agentId, ...(await read(request, PER_IP_HOME, 8192)) });
        return outcome.ok ? { deleted: outcome.deleted } : refuse(outcome);
      },
      {
        parse: "none",
        bodyDoc: v.object({ ...Signed.entries, ids: v.array(v.string()) }),
        params: Params,
        response: { 200: v.object({ deleted: v.number() }), ...inkErrors },
        detail: detail("The home agent acknowledges items it has committed (signed network.ink.mailbox_ack); they are deleted"),
      },
    )
    .post(
      "/mailbox/ink/v1/:agentId/card",
      async ({ params, request }) => {
        const outcome = publishMailboxCard(deps.ctx(PUBLIC), { agentId: params.agentId, ...(await read(request, PER_IP_HOME, MAX_HOME_BYTES)) });
        return outcome.ok ? { keySetVersion: outcome.keySetVersion } : refuse(outcome);
      },
      {
        parse: "none",
        bodyDoc: v.object({ ...Signed.entries, card: v.nullable(AgentCardDoc) }),
        params: Params,
        response: { 200: v.object({ keySetVersion: v.nullable(v.number()) }), ...inkErrors },
        detail: detail("The home agent publishes the card served for it here (signed network.ink.mailbox_card; signed card, endpoint on this mailbox), or withdraws it (card: null)"),
      },
    );
}
