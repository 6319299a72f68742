import * as v from "valibot";
import { decidePending, DecidePendingInput } from "../../domain/approvals/decide-pending.ts";
import { listPending, PendingQuery } from "../../domain/approvals/list-pending.ts";
import { getPendingAction } from "../../domain/approvals/get-pending-action.ts";
import { addConnection, AddConnectionInput } from "../../domain/connections/add-connection.ts";
import { ConnectionQuery, listConnections } from "../../domain/connections/list-connections.ts";
import { getConnection } from "../../domain/connections/get-connection.ts";
import { updateConnection, UpdateConnectionInput } from "../../domain/connections/update-connection.ts";
import { ConversationQuery, listConversations } from "../../domain/conversations/list-conversations.ts";
import { getConversation } from "../../domain/conversations/get-conversation.ts";
import { getInboxMessage } from "../../domain/inbox/get-inbox-message.ts";
import { InboxQuery, InboxSearchQuery, listInbox } from "../../domain/inbox/list-inbox.ts";
import { respondToMessage, RespondInput } from "../../domain/inbox/respond-to-message.ts";
import { getSentMessage } from "../../domain/outbox/get-sent-message.ts";
import { queryPeerAudit } from "../../domain/audit/query-peer-audit.ts";
import { sendIntent, SendIntentInput } from "../../domain/outbox/send-intent.ts";
import type { OwnerTokens } from "../../security/owner-token.ts";
import type { SurfaceDeps } from "../deps.ts";
import { OWNER_SECURITY } from "../plugins/owner-auth.ts";
import { jsonBody } from "../schemas/body.ts";
import { errors } from "../schemas/common.ts";
import { ConnectionDoc, ConversationDetailDoc, ConversationDoc, MessageDoc, pageDoc, PendingActionDoc, SendResultDoc } from "../schemas/federation.ts";
import { ownerApi } from "./owner.routes.ts";

const IdParam = v.object({ id: v.pipe(v.string(), v.minLength(1), v.maxLength(256)) });
const PAGING = "Paginated: `limit` (1-200, default 50) and `cursor` (the previous page's `nextCursor`), newest first.";

/**
 * The owner API of federation (SPEC "Owner API"): inbox, connections, conversations, sending
 * intents and pending actions. Every route needs the owner bearer token and calls one verb.
 */
const PeerAuditDoc = v.object({ peer: v.string(), messageId: v.string(), verified: v.literal(true), events: v.array(v.looseObject({})) });

export function federationRoutes(deps: SurfaceDeps, o: { tokens: Pick<OwnerTokens, "verify"> }) {
  const doc = (tag: string, summary: string, description?: string) => ({ tags: [tag], summary, ...(description ? { description } : {}), security: OWNER_SECURITY });
  return ownerApi(o.tokens)
    .get("/inbox", ({ actor, query }) => listInbox(deps.ctx(actor), query), {
      query: InboxQuery,
      response: { 200: pageDoc(MessageDoc), ...errors(400, 401) },
      detail: doc("Inbox", "Received messages", `Filters: status, intent, label (set by automation rules). Retracted messages are hidden. ${PAGING}`),
    })
    .get("/inbox/search", ({ actor, query }) => listInbox(deps.ctx(actor), query), {
      query: InboxSearchQuery,
      response: { 200: pageDoc(MessageDoc), ...errors(400, 401) },
      detail: doc("Inbox", "Search received messages", `q (text in intent, sender and payload), intent, status, from (agent id), after/before (RFC 3339, on receivedAt). ${PAGING}`),
    })
    .get("/inbox/:id", ({ actor, params }) => getInboxMessage(deps.ctx(actor), params.id), {
      params: IdParam,
      response: { 200: MessageDoc, ...errors(401, 404) },
      detail: doc("Inbox", "One message, by envelope id", "Opening an unread message marks it read."),
    })
    .post(
      "/inbox/:id/respond",
      async ({ actor, params, body, set }) => {
        const sent = await respondToMessage(deps.ctx(actor), params.id, body);
        set.status = 202;
        return sent;
      },
      {
        params: IdParam,
        body: jsonBody(RespondInput),
        response: { 202: SendResultDoc, ...errors(400, 401, 404, 409, 503) },
        detail: doc("Inbox", "Answer a message with its matching _response intent", "Queued in the outbox (202); answering a connection_request accepts or declines it (payload.status). The answer goes to the cardUrl given, else to the card the node knows for the sender (including a card hint its key signed); 409 when there is neither (pass cardUrl)."),
      },
    )
    .get("/connections", ({ actor, query }) => listConnections(deps.ctx(actor), query), {
      query: ConnectionQuery,
      response: { 200: pageDoc(ConnectionDoc), ...errors(400, 401) },
      detail: doc("Connections", "Connections", `Optional filters: status, layer (the layer in force), health. Each connection carries its Dunbar layer and private health band. ${PAGING}`),
    })
    .post(
      "/connections",
      async ({ actor, body, set }) => {
        const result = await addConnection(deps.ctx(actor), body);
        set.status = 202;
        return result;
      },
      {
        body: jsonBody(AddConnectionInput),
        response: { 202: v.object({ connection: ConnectionDoc, request: v.nullable(SendResultDoc) }), ...errors(400, 401, 409, 503) },
        detail: doc("Connections", "Connect to an agent by its Agent Card URL (or base URL + agent id)", "Fetches the card (SSRF-gated), sends a connection_request. If they already asked us, accepts their request instead."),
      },
    )
    .get("/connections/:id", ({ actor, params }) => getConnection(deps.ctx(actor), params.id), {
      params: IdParam,
      response: { 200: ConnectionDoc, ...errors(401, 404) },
      detail: doc("Connections", "One connection"),
    })
    .patch("/connections/:id", ({ actor, params, body }) => updateConnection(deps.ctx(actor), params.id, body), {
      params: IdParam,
      body: jsonBody(UpdateConnectionInput, { update: true }),
      response: { 200: ConnectionDoc, ...errors(400, 401, 404, 409) },
      detail: doc("Connections", "Change a connection's status or Dunbar layer", "status: pending → connected/declined answers the request with a connection_response (to cardUrl when given, else the card known for the peer; 409 when there is none); requested → disconnected withdraws it; blocked refuses everything from that agent. layer: overrides the computed layer until cleared with null (the health band is then measured against that layer's cadence)."),
    })
    .get("/conversations", ({ actor, query }) => listConversations(deps.ctx(actor), query), {
      query: ConversationQuery,
      response: { 200: pageDoc(ConversationDoc), ...errors(400, 401) },
      detail: doc("Conversations", "Threads", `Most recently active first. ${PAGING}`),
    })
    .get("/conversations/:id", ({ actor, params }) => getConversation(deps.ctx(actor), params.id), {
      params: IdParam,
      response: { 200: ConversationDetailDoc, ...errors(401, 404) },
      detail: doc("Conversations", "All messages of a thread", "Oldest first; outbound messages carry their delivery state."),
    })
    .post(
      "/intents",
      async ({ actor, body, set }) => {
        const sent = await sendIntent(deps.ctx(actor), body);
        set.status = 202;
        return sent;
      },
      {
        body: jsonBody(SendIntentInput),
        response: { 202: SendResultDoc, ...errors(400, 401, 409, 503) },
        detail: doc("Intents", "Send an intent to another agent", "Validated against the INK payload schema, queued in the durable outbox (202); `cardUrl` is required when `to` is not yet a known contact. Confidential intents are sealed; ink/0.2 only to peers that advertise it."),
      },
    )
    .get("/intents/:id", ({ actor, params }) => getSentMessage(deps.ctx(actor), params.id), {
      params: IdParam,
      response: { 200: MessageDoc, ...errors(401, 404) },
      detail: doc("Intents", "A sent intent and its delivery state", "queued (with attempts and next attempt), delivered, or failed with the reason."),
    })
    .get("/intents/:id/audit", ({ actor, params }) => queryPeerAudit(deps.ctx(actor), params.id), {
      params: IdParam,
      response: { 200: PeerAuditDoc, ...errors(401, 404, 409, 503) },
      detail: doc("Intents", "The peer's signed audit events for a message (INK audit exchange)", "Asks the message's peer (POST /ink/v1/audit, AUDIT §4) and answers only when its response signature, the slice's hash chain and every event signature verify; 409 when the peer does not advertise auditExchange, 503 when it does not answer or its answer does not verify."),
    })
    .get("/pending", ({ actor, query }) => listPending(deps.ctx(actor), query), {
      query: PendingQuery,
      response: { 200: pageDoc(PendingActionDoc), ...errors(400, 401) },
      detail: doc("Pending actions", "Actions awaiting the owner", `status: pending (default), approved, rejected or all. ${PAGING}`),
    })
    .get("/pending/:id", ({ actor, params }) => getPendingAction(deps.ctx(actor), params.id), {
      params: IdParam,
      response: { 200: PendingActionDoc, ...errors(401, 404) },
      detail: doc("Pending actions", "One pending action"),
    })
    .post("/pending/:id", ({ actor, params, body }) => decidePending(deps.ctx(actor), params.id, body), {
      params: IdParam,
      body: jsonBody(DecidePendingInput),
      response: { 200: PendingActionDoc, ...errors(400, 401, 404, 409) },
      detail: doc("Pending actions", "Approve or reject, once", "approve runs the held action (accept the connection, release the message and send its drafted reply, or send the held intent); reject does not. A second decision answers 409, and so does answering a connection request from an agent whose card the node does not know (answer it with cardUrl through respond or PATCH)."),
    });
}
